"""Gear-shift manipulator of a driving robot, and a slider-crank validation case.

Both mechanisms are *data* on the planar multibody core
(:mod:`robolib.core.multibody`); any of their revolute joints can be turned into a
clearance joint (:mod:`robolib.core.clearance`).

Gear-shift manipulator (reconstruction, see the Models page of the book): three
two-link chains ``i = 1, 2, 3`` pinned to ground at ``A_i`` (joints ``A1..A3``),
elbow pins ``B1..B3`` between links ``i1`` and ``i2``, chain ends 2 and 3 pinned
to the end of chain 1 (``E2``, ``E3``), the hand lever pinned there too (``C``)
and locked to link 12's angle (``lock``): 7 bodies, 21 coordinates, 19 rows
(Eq. 14). Two drivers (``drive1``, ``drive2`` by default) prescribe the base
angles from the inverse kinematics of the shift stroke
``E(t) = E0 + (0, a sin(2 pi f t))``; the gearbox is a spring--damper on the
lever tip. Body names: ``l11, l12, l21, l22, l31, l32, lever``.

Slider-crank: ``crank`` pinned to ground (``O``), ``rod`` (``A``), ``slider``
(``B``, the default clearance joint), the slider held on the x axis
(``slide_y``, ``slide_theta``), crank at constant speed (``drive``).

Typical use (what the notebook needs)::

    p = load_parameters()                                   # data/gearshift/default.yaml
    gs = build_gearshift(p)
    segs = gs.drawing(gs.ideal_state(0.0)[0])               # draw the mechanism
    im = ideal_motion(gs, t)                                # ideal q, qd, qdd, driving torques
    cm, r = simulate_clearance(gs, 1.0, t_eval=t)           # clearance run (joint B1, c = 0.1 mm)
    orb = journal_orbit(cm, r.q, r.qd)                      # orbit in the clearance circle
    F = cm.contact_forces(r)                                # F_n, F_t, delta, ... at the samples
    modes = clearance.contact_modes(r.t, r.episodes[0])     # free flight / impact / continuous
    qdd = cm.accelerations(r); ideal = [gs.ideal_state(s) for s in r.t]
    err = end_effector_errors(gs, r.q, r.qd, qdd, *ideal-arrays)   # direct and Eqs. 21-22
    pr = poincare_run(p, frequency=6.0, clearance=5e-4)     # one point of a bifurcation diagram; pr["period"]
    nonlinear.sweep(functools.partial(poincare_run, p, clearance=5e-4), freqs, n_jobs=-1)
    nonlinear.sweep(functools.partial(poincare_run, p, 6.0), cs, n_jobs=-1, keyword="clearance")
    lyapunov_run(p, frequency=6.0, clearance=5e-4)          # largest Lyapunov exponent (1/s)
    sc = build_slider_crank(); slider_closed_form(...)     # validation case

Cost: a few tenths of a second of wall time per simulated second with the
compiled step loop (:func:`robolib.core.multibody.integrate_compiled`; about 30 000
integration steps per simulated second at the default rtol).

>>> gs = build_gearshift(load_parameters())
>>> gs.mech.n, gs.mech.m
(21, 21)
>>> q, qd, qdd = gs.ideal_state(0.1)
>>> bool(abs(gs.mech.residual(q, 0.1)).max() < 1e-12)
True
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from robolib.core._kernels import chain_drive_py as _drive_angle_py  # one copy of the chain IK for the kernels
from robolib.core.checks import real, real_array
from robolib.core.clearance import ClearanceModel, ClearanceResult, ClearanceSpec
from robolib.core.errors import ParameterError, ParameterFileError, SingularityError, UnreachableError
from robolib.core.multibody import (
    GROUND,
    AngleLock,
    Body,
    Constant,
    ConstantSpeed,
    Driver,
    GroundPin,
    Mechanism,
    Pin,
    PointSpringDamper,
    driving_torques,
    inverse_dynamics,
    kinematic_state,
    simulate,
)
from robolib.core.params import Parameter, load_yaml, number, text, validate, vector

#: Revolute joints of the manipulator that can have clearance (the fast model takes one, the DAE several).
CLEARANCE_JOINTS = ("A1", "A2", "A3", "B1", "B2", "B3", "E2", "E3", "C")
#: |sin(theta2 - theta1)| below which a two-link chain is at its singular (straight) pose.
CHAIN_SINGULAR_TOL = 1e-9

# --------------------------------------------------------------------------- arguments of the kernels
_POS = {"low": 0.0, "open_low": True}
#: The valid values of the kernels' arguments (frequency, clearance, tolerances, durations, counts), by name:
#: :func:`check_arguments` refuses any other value with a :class:`robolib.ParameterError` that names the argument
#: and its range, before any work. ``None`` is valid where it means "the parameter file's value".
ARGUMENTS = {
    "frequency": Parameter(None, "drive frequency; None: the parameter set's", unit="Hz", allow_none=True, **_POS),
    "clearance": Parameter(None, "radial clearance; None: the parameter set's", unit="m", allow_none=True, **_POS),
    "rtol": Parameter(None, "relative tolerance of the integrator; None: the parameter set's", low=0.0, high=1.0,
                      open_low=True, open_high=True, allow_none=True),
    "atol": Parameter(None, "absolute tolerance of the integrator; None: the parameter set's", allow_none=True,
                      **_POS),
    "t_start": Parameter(0.0, "start time of the run", unit="s"),
    "t_end": Parameter(None, "end time of the run", unit="s"),
    "duration": Parameter(1.0, "simulated time", unit="s", **_POS),
    "seconds": Parameter(0.5, "simulated time (a whole number of drive periods, at least one)", unit="s", **_POS),
    "sample_rate": Parameter(20000.0, "output samples per simulated second", unit="1/s", **_POS),
    "samples_per_second": Parameter(4000.0, "output samples per simulated second", unit="1/s", **_POS),
    "n_transient": Parameter(20, "drive periods before the first sample", kind="integer", low=0),
    "n_samples": Parameter(60, "Poincaré samples; the period test compares at least two", kind="integer", low=2),
    "k_max": Parameter(None, "largest lag of the period test; None: min(8, n_samples // 3)", kind="integer", low=1,
                       allow_none=True),
    "n_periods": Parameter(4, "drive periods sampled", kind="integer", low=1),
    "samples_per_period": Parameter(200, "samples per drive period", kind="integer", low=1),
    "seed": Parameter(0, "seed of the random initial tangent direction", kind="integer", low=0),
    "alpha": Parameter(None, "Baumgarte factor alpha = beta; None: the parameter set's", unit="1/s", low=0.0,
                       allow_none=True),
}


def check_arguments(**values) -> None:
    """Raise :class:`robolib.ParameterError` naming the first argument whose value is not valid (:data:`ARGUMENTS`).

    NumPy scalars count as the Python numbers they hold; a bool is not a number.

    >>> check_arguments(frequency=6.0, rtol=1e-9, n_samples=60)
    >>> check_arguments(frequency=0.0)
    Traceback (most recent call last):
        ...
    robolib.ParameterError: frequency = 0.0 is not valid: frequency must be a number > 0 Hz, or None (drive frequency; None: the parameter set's)
    """
    for name, value in values.items():
        _validate(name, value, ARGUMENTS[name])


def check_clearance(params: dict, clearance=None, name: str | None = None, unit: str = "m") -> float:
    """The radial clearance (m) of a run on the parameter set ``params``: ``clearance`` in ``unit`` (``"m"`` or
    ``"mm"``; None: the set's ``clearance.radial_clearance``), refused at or above the set's journal radius
    ``clearance.journal_radius`` (the contact laws are those of a journal in a slightly larger bearing), with a
    :class:`robolib.ParameterError` naming ``name`` (default ``clearance``, or the set's field), the value, the radius
    and the unit. Every route from a clearance to a clearance model passes here (:func:`clearance_specs`), and every
    parameter set and file (:func:`check_params`, :func:`load_parameters`); the likely mistake is mm given as m.

    >>> check_clearance(load_parameters(), 5e-4)
    0.0005
    >>> check_clearance(load_parameters(), 0.2)
    Traceback (most recent call last):
        ...
    robolib.ParameterError: clearance = 0.2 m is not valid: it is 40x the journal radius 5 mm (clearance.journal_radius); a radial clearance must be below the journal radius, and clearance is in metres (0.2 mm is 0.0002 m)
    """
    r_j = params["clearance"]["journal_radius"]
    name = name or ("clearance" if clearance is not None else "clearance.radial_clearance")
    value = params["clearance"]["radial_clearance"] if clearance is None else clearance
    c = float(value) * (1e-3 if unit == "mm" else 1.0)
    if not c < r_j:
        hint = f" ({value:g} mm is {value * 1e-3:g} m)" if unit == "m" else ""
        raise ParameterError(f"{name} = {value!r} {unit} is not valid: it is {c / r_j:.3g}x the journal radius "
                             f"{r_j * 1e3:g} mm (clearance.journal_radius); a radial clearance must be below the "
                             f"journal radius, and {name.split('.')[-1]} is in {'metres' if unit == 'm' else unit}"
                             f"{hint}")
    return c


#: A drive frequency that must be given (the stroke's, the parameter set's ``motion.frequency``).
_FREQUENCY = Parameter(2.0, "drive frequency", unit="Hz", **_POS)


def _validate(name: str, value, spec: Parameter) -> None:
    spec.validate(name, value.item() if isinstance(value, np.generic) else value)


def _check_times(t_start, t_end) -> None:
    """``t_start`` finite and ``t_end`` finite and after it (s)."""
    check_arguments(t_start=t_start, t_end=t_end)
    if not t_end > t_start:
        raise ParameterError(f"t_end = {t_end!r} is not valid: t_end must be a number > t_start = {t_start:g} s "
                             f"(end time of the run)")

_CLEARANCE_SCHEMA = {
    "joints": text(),
    "radial_clearance": number(unit="m", positive=True),
    "journal_radius": number(unit="m", positive=True),
    "youngs_modulus": number(unit="Pa", positive=True),
    "poisson_ratio": number(),
    "restitution": number(positive=True),
    "friction": number(nonnegative=True),
    "friction_v0": number(unit="m/s", nonnegative=True),
    "friction_v1": number(unit="m/s", positive=True),
    "law": text(choices=("lankarani_nikravesh", "flores", "hertz")),
    "ddelta0_floor": number(unit="m/s", positive=True),
    "impact_max_duration": number(unit="s", positive=True),
}
_SOLVER_SCHEMA = {
    "baumgarte_alpha": number(unit="1/s", nonnegative=True),
    "baumgarte_beta": number(unit="1/s", nonnegative=True),
    "rtol": number(positive=True),
    "atol": number(positive=True),
}
#: Schema of ``data/gearshift/default.yaml``.
SCHEMA = {
    "geometry": {
        "A1": vector(2, unit="m"), "A2": vector(2, unit="m"), "A3": vector(2, unit="m"),
        "link_length": number(unit="m", positive=True), "link_mass": number(unit="kg", positive=True),
        "lever_length": number(unit="m", positive=True), "lever_mass": number(unit="kg", positive=True),
        "elbow": vector(3),
    },
    "motion": {
        "stroke_amplitude": number(unit="m", nonnegative=True),
        "frequency": number(unit="Hz", positive=True),
        "driven_chains": vector(2),
    },
    "gearbox": {"stiffness": number(unit="N/m", nonnegative=True), "damping": number(unit="N s/m", nonnegative=True)},
    "clearance": _CLEARANCE_SCHEMA,
    "solver": _SOLVER_SCHEMA,
}
#: Schema of ``data/gearshift/slider_crank.yaml``.
SLIDER_CRANK_SCHEMA = {
    "geometry": {k: number(unit="m", positive=True) for k in ("crank_length", "rod_length")}
    | {k: number(unit="kg", positive=True) for k in ("crank_mass", "rod_mass", "slider_mass")}
    | {k: number(unit="kg m^2", positive=True) for k in ("crank_inertia", "rod_inertia", "slider_inertia")},
    "motion": {"crank_speed": number(unit="rad/s"), "crank_angle0": number(unit="rad")},
    "clearance": _CLEARANCE_SCHEMA,
    "solver": _SOLVER_SCHEMA,
}


def load_parameters(path: str | Path = "gearshift/default.yaml") -> dict:
    """Load and validate gear-shift parameters (default: ``data/gearshift/default.yaml``).

    >>> load_parameters()["motion"]["frequency"]
    2.0
    """
    return _radius_condition(load_yaml(path, SCHEMA), path)


def _radius_condition(p: dict, source) -> dict:
    """``p`` (a parameter file's, or a set named ``source``) if its clearance is below its journal radius, else
    :class:`robolib.ParameterFileError` naming ``source`` and the field."""
    try:
        check_clearance(p)
    except ParameterError as exc:
        raise ParameterFileError(f"{source}: field {exc}") from None
    return p


def load_slider_crank(path: str | Path = "gearshift/slider_crank.yaml") -> dict:
    """Load and validate slider-crank parameters (default: ``data/gearshift/slider_crank.yaml``).

    >>> load_slider_crank()["geometry"]["rod_length"]
    0.12
    """
    return _radius_condition(load_yaml(path, SLIDER_CRANK_SCHEMA), path)


def check_params(params, schema=None, name: str = "params") -> None:
    """Raise a :class:`robolib.RobolibError` naming ``params`` and the field when ``params`` is not a valid
    parameter set of ``schema`` (default :data:`SCHEMA`, the gear-shift's): not a mapping, a field missing,
    unknown, mistyped or out of range, or a radial clearance at or above the journal radius."""
    _radius_condition(validate(params, SCHEMA if schema is None else schema, source=name), name)


def with_changes(params: dict, **changes) -> dict:
    """Copy of ``params`` with dotted-path changes, e.g. ``with_changes(p, **{"motion.frequency": 6.0})``.

    Unknown paths raise :class:`robolib.ParameterError`.

    >>> with_changes(load_parameters(), **{"clearance.radial_clearance": 5e-4})["clearance"]["radial_clearance"]
    0.0005
    """

    if not isinstance(params, dict):
        raise ParameterError(f"params must be a parameter set (a dict, e.g. load_parameters()), got {params!r:.60}")
    out = copy.deepcopy(params)
    for path, value in changes.items():
        keys = path.split(".")
        d = out
        for k in keys[:-1]:
            if not isinstance(d, dict) or k not in d:
                raise ParameterError(f"unknown parameter {path!r} (params has no such field)")
            d = d[k]
        if not isinstance(d, dict) or keys[-1] not in d:
            raise ParameterError(f"unknown parameter {path!r} (params has no such field)")
        d[keys[-1]] = value
    return out


# --------------------------------------------------------------------------- two-link chain IK
def _pair(name: str, v) -> tuple:
    a = real_array(name, v, shape=(2,))
    return float(a[0]), float(a[1])


def chain_ik(A, E, Ed, Edd, l1: float, l2: float, sign: float):
    """Inverse kinematics of a 2R chain from ``A`` to the end point ``E`` (with rates).

    Returns ``(theta1, theta2, theta1d, theta2d, theta1dd, theta2dd)`` (absolute
    link angles, rad, rad/s, rad/s^2); ``theta1 = phi + sign * alpha`` with
    ``phi`` the direction A->E and ``alpha`` the elbow half-angle. Raises
    :class:`robolib.UnreachableError` when E is out of reach and
    :class:`robolib.SingularityError` at the stretched/folded pose.

    >>> th = chain_ik((0, 0), (0.12, 0.12), (0, 0), (0, 0), 0.12, 0.12, 1.0)
    >>> [round(math.degrees(x), 9) for x in th[:2]]
    [90.0, 0.0]

    Points are pairs (2,) of finite numbers (m, m/s, m/s^2), ``l1``, ``l2`` > 0 m and ``sign`` +1 or -1;
    anything else raises :class:`robolib.ParameterError` naming it.
    """
    A, E, Ed, Edd = _pair("A", A), _pair("E", E), _pair("Ed", Ed), _pair("Edd", Edd)
    l1, l2 = real("l1", l1, low=0.0, open_low=True, unit="m"), real("l2", l2, low=0.0, open_low=True, unit="m")
    if real("sign", sign) not in (-1.0, 1.0):
        raise ParameterError(f"sign must be +1 or -1 (the elbow branch), got {sign!r}")
    return _chain_ik(A, E, Ed, Edd, l1, l2, float(sign))


def _chain_ik(A, E, Ed, Edd, l1: float, l2: float, sign: float):
    """:func:`chain_ik` without the argument checks (inner loops: the stroke and the built chains are valid)."""
    dx, dy = E[0] - A[0], E[1] - A[1]
    d = math.hypot(dx, dy)
    if d <= 0.0:
        raise UnreachableError(f"chain from A = {tuple(A)}: end point E = {tuple(E)} coincides with the ground pin")
    ca = (l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)
    if not -1.0 <= ca <= 1.0:
        raise UnreachableError(f"chain from A = {tuple(A)}: end point E = ({E[0]:.6g}, {E[1]:.6g}) m is out of reach "
                               f"of links {l1:g} m + {l2:g} m (distance {d:.6g} m)")
    th1 = math.atan2(dy, dx) + sign * math.acos(ca)
    c1, s1 = math.cos(th1), math.sin(th1)
    th2 = math.atan2(E[1] - A[1] - l1 * s1, E[0] - A[0] - l1 * c1)
    c2, s2 = math.cos(th2), math.sin(th2)
    det = l1 * l2 * math.sin(th2 - th1)  # det [l1 u1perp, l2 u2perp]
    if abs(math.sin(th2 - th1)) < CHAIN_SINGULAR_TOL:
        raise SingularityError(f"chain from A = {tuple(A)}: stretched or folded at E = ({E[0]:.6g}, {E[1]:.6g}) m")
    # [-l1 s1, -l2 s2; l1 c1, l2 c2] [w1, w2] = b
    def solve(bx, by):
        w1 = (bx * l2 * c2 + by * l2 * s2) / det
        w2 = -(bx * l1 * c1 + by * l1 * s1) / det
        return w1, w2

    w1, w2 = solve(Ed[0], Ed[1])
    bx = Edd[0] + l1 * w1 * w1 * c1 + l2 * w2 * w2 * c2
    by = Edd[1] + l1 * w1 * w1 * s1 + l2 * w2 * w2 * s2
    a1, a2 = solve(bx, by)
    return th1, th2, w1, w2, a1, a2


class ShiftStroke:
    """End-point stroke ``E(t) = E0 + (0, a sin(2 pi f t))``; call returns ``(E, Ed, Edd)`` (m, m/s, m/s^2).

    >>> ShiftStroke((0.0, 0.0), 0.03, 1.0)(0.25)[0]
    (0.0, 0.03)
    """

    def __init__(self, E0, amplitude: float, frequency: float):
        _validate("frequency", frequency, _FREQUENCY)
        self.E0 = _pair("E0", E0)
        real("amplitude", amplitude, low=0.0, unit="m")
        self.a, self.w = float(amplitude), 2.0 * math.pi * float(frequency)

    def __call__(self, t):
        s, c = math.sin(self.w * t), math.cos(self.w * t)
        a, w = self.a, self.w
        return (self.E0[0], self.E0[1] + a * s), (0.0, a * w * c), (0.0, -a * w * w * s)


try:
    import numba as _numba

    _drive_angle = _numba.njit(cache=True)(_drive_angle_py)
except ImportError:  # pragma: no cover
    _drive_angle = _drive_angle_py


class ChainDrive:
    """Driver motion: base angle of one chain from the stroke's inverse kinematics (picklable).

    Uses a compiled copy of :func:`chain_ik` when numba is installed; an
    unreachable or singular stroke raises the error of :func:`chain_ik`.

    >>> st = ShiftStroke((0.12, 0.0693), 0.03, 2.0)
    >>> d = ChainDrive((0.0, 0.0), 0.12, 0.12, 1.0, st)
    >>> E, Ed, Edd = st(0.1)
    >>> bool(np.allclose(d(0.1), np.array(chain_ik((0.0, 0.0), E, Ed, Edd, 0.12, 0.12, 1.0))[[0, 2, 4]]))
    True
    """

    def __init__(self, A, l1, l2, sign, stroke: ShiftStroke):
        self.A, self.l1, self.l2, self.sign, self.stroke = (float(A[0]), float(A[1])), l1, l2, sign, stroke
        self._args = (self.A[0], self.A[1], float(l1), float(l2), float(sign), stroke.E0[0], stroke.E0[1],
                      stroke.a, stroke.w)

    def kernel_row(self):
        """Compiled form for the step loop: kind 2 and the chain/stroke data."""
        return (2.0, *self._args)

    def __call__(self, t):
        r = _drive_angle(float(t), *self._args)
        if r[0] != r[0]:  # NaN: let the checked version raise the informative error
            E, Ed, Edd = self.stroke(t)
            th = _chain_ik(self.A, E, Ed, Edd, self.l1, self.l2, self.sign)
            return th[0], th[2], th[4]
        return r


# --------------------------------------------------------------------------- gear-shift model
@dataclass
class GearShift:
    """A built gear-shift manipulator: the ideal mechanism plus geometry helpers."""

    params: dict
    mech: Mechanism
    stroke: ShiftStroke
    A: np.ndarray          # (3, 2) ground pins
    l: float               # link length
    lpc: float             # lever length
    signs: tuple

    # ----- closed-form ideal motion (inverse kinematics of all three chains)
    def ideal_state(self, t: float):
        """Closed-form ``(q, qd, qdd)`` (21,) of the ideal mechanism at time ``t`` (s)."""
        E, Ed, Edd = self.stroke(t)
        l, h = self.l, self.l / 2
        q, qd, qdd = np.zeros(21), np.zeros(21), np.zeros(21)
        for i in range(3):
            th1, th2, w1, w2, a1, a2 = _chain_ik(self.A[i], E, Ed, Edd, l, l, self.signs[i])
            # start of the link (the ground pin, then the end of link i1) and its velocity, acceleration
            b, bv, ba = (self.A[i][0], self.A[i][1]), (0.0, 0.0), (0.0, 0.0)
            for k, (th, w, a) in enumerate(((th1, w1, a1), (th2, w2, a2))):
                c, s = math.cos(th), math.sin(th)
                j = 3 * (2 * i + k)
                q[j:j + 3] = (b[0] + h * c, b[1] + h * s, th)
                qd[j:j + 3] = (bv[0] - h * s * w, bv[1] + h * c * w, w)
                qdd[j:j + 3] = (ba[0] - h * s * a - h * c * w * w, ba[1] + h * c * a - h * s * w * w, a)
                b, bv = (b[0] + l * c, b[1] + l * s), (bv[0] - l * s * w, bv[1] + l * c * w)
                ba = (ba[0] - l * s * a - l * c * w ** 2, ba[1] + l * c * a - l * s * w ** 2)
        # lever: continues link 12 past E, CoM at lpc/2 beyond E
        th, w, a = q[5], qd[5], qdd[5]
        c, s, hp = math.cos(th), math.sin(th), self.lpc / 2
        q[18:21] = (E[0] + hp * c, E[1] + hp * s, th)
        qd[18:21] = (Ed[0] - hp * s * w, Ed[1] + hp * c * w, w)
        qdd[18:21] = (Edd[0] - hp * s * a - hp * c * w * w, Edd[1] + hp * c * a - hp * s * w * w, a)
        return q, qd, qdd

    def end_point(self, q):
        """End point E (m) of chain 1 (end of link 12) for states q (..., 21)."""
        return self.mech.point_position(q, "l12", (self.l / 2, 0.0))

    def lever_tip(self, q):
        """Lever tip position (m) for states q (..., 21)."""
        return self.mech.point_position(q, "lever", (self.lpc / 2, 0.0))

    def drawing(self, q) -> dict:
        """Segments for a drawing of the mechanism: ``{body: (2, 2) end points}`` (m), plus ``"ground"`` (3, 2).

        >>> gs = build_gearshift()
        >>> sorted(gs.drawing(gs.ideal_state(0.0)[0]))[:3]
        ['ground', 'l11', 'l12']
        """
        out = {"ground": self.A.copy()}
        for b in self.mech.bodies:
            half = (self.lpc if b.name == "lever" else self.l) / 2
            out[b.name] = np.stack([self.mech.point_position(q, b.name, (-half, 0.0)),
                                    self.mech.point_position(q, b.name, (half, 0.0))])
        return out


def build_gearshift(params: dict | None = None) -> GearShift:
    """Build the ideal gear-shift manipulator (7 bodies, 19 joint rows + 2 drivers) from parameters.

    Raises :class:`robolib.ParameterError` for a bad driven-chain list and
    :class:`robolib.UnreachableError` / :class:`robolib.ConvergenceError` if the
    mechanism does not assemble for the stroke.
    """
    p = load_parameters() if params is None else params
    if isinstance(p, dict) and isinstance(p.get("motion"), dict) and "frequency" in p["motion"]:
        _validate("motion.frequency", p["motion"]["frequency"], _FREQUENCY)   # the drive's own range first
    check_params(p)
    g, mo, gb = p["geometry"], p["motion"], p["gearbox"]
    A = np.array([g["A1"], g["A2"], g["A3"]], dtype=float)
    l, lpc = g["link_length"], g["lever_length"]
    signs = tuple(1.0 if s >= 0 else -1.0 for s in np.asarray(g["elbow"], float))
    driven = [int(round(x)) for x in np.asarray(mo["driven_chains"], float)]
    if len(set(driven)) != 2 or not set(driven) <= {1, 2, 3}:
        raise ParameterError(f"motion.driven_chains must name two different chains of 1, 2, 3, got {driven}")
    E0 = A.mean(axis=0)
    stroke = ShiftStroke(E0, mo["stroke_amplitude"], mo["frequency"])
    m, mpc = g["link_mass"], g["lever_mass"]
    bodies = [Body(f"l{i}{j}", m, m * l * l / 12) for i in (1, 2, 3) for j in (1, 2)]
    bodies.append(Body("lever", mpc, mpc * lpc * lpc / 12))
    h = l / 2
    joints = []
    for i in (1, 2, 3):
        joints.append(GroundPin(f"A{i}", f"l{i}1", (-h, 0.0), tuple(A[i - 1])))
        joints.append(Pin(f"B{i}", f"l{i}1", (h, 0.0), f"l{i}2", (-h, 0.0)))
    joints.append(Pin("E2", "l12", (h, 0.0), "l22", (h, 0.0)))
    joints.append(Pin("E3", "l12", (h, 0.0), "l32", (h, 0.0)))
    joints.append(Pin("C", "l12", (h, 0.0), "lever", (-lpc / 2, 0.0)))
    joints.append(AngleLock("lock", "l12", "lever"))
    for i in sorted(driven):
        joints.append(Driver(f"drive{i}", f"l{i}1", ChainDrive(A[i - 1], l, l, signs[i - 1], stroke)))
    # gearbox spring anchored at the lever tip's position when E = E0 (t = 0)
    gs0 = GearShift(p, Mechanism(bodies, joints, name="gear-shift"), stroke, A, l, lpc, signs)
    q0 = gs0.ideal_state(0.0)[0]
    anchor = tuple(gs0.lever_tip(q0))
    forces = [PointSpringDamper("gearbox", "lever", (lpc / 2, 0.0), anchor, gb["stiffness"], gb["damping"])]
    mech = Mechanism(bodies, joints, forces, name="gear-shift")
    return GearShift(p, mech, stroke, A, l, lpc, signs)


def clearance_specs(params: dict, joints=None, clearance: float | None = None) -> list[ClearanceSpec]:
    """:class:`ClearanceSpec` list from the ``clearance`` section (``joints`` / ``clearance`` [m] override)."""
    check_arguments(clearance=clearance)
    check_clearance(params, clearance)
    c = params["clearance"]
    names = joints if joints is not None else [s.strip() for s in c["joints"].split(",") if s.strip()]
    if isinstance(names, str):
        names = [s.strip() for s in names.split(",") if s.strip()]
    if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) and n for n in names):
        raise ParameterError(f"joints must be joint names (a non-empty list of text, or 'B1, C'), got {joints!r:.60}")
    cc = c["radial_clearance"] if clearance is None else clearance
    return [ClearanceSpec(nm, clearance=cc, R_journal=c["journal_radius"], E_bearing=c["youngs_modulus"],
                          nu_bearing=c["poisson_ratio"], E_journal=c["youngs_modulus"],
                          nu_journal=c["poisson_ratio"], restitution=c["restitution"], mu=c["friction"],
                          v0=c["friction_v0"], v1=c["friction_v1"], law=c["law"],
                          ddelta0_floor=c["ddelta0_floor"]) for nm in names]


def clearance_model(model, joints=None, clearance: float | None = None) -> ClearanceModel:
    """The :class:`ClearanceModel` of a built :class:`GearShift` or :class:`SliderCrank`."""
    p = model.params
    return ClearanceModel(model.mech, clearance_specs(p, joints, clearance), p["solver"]["baumgarte_alpha"],
                          p["solver"]["baumgarte_beta"], p["clearance"]["impact_max_duration"])


def ideal_motion(model, t) -> dict:
    """Ideal (0-DOF) motion at times ``t`` (T,) by the kinematic route.

    Newton assembly + ``J qd = -H_t`` + ``J qdd = gamma`` per instant (the closed
    form seeds Newton); driving torques from the multipliers. Returns ``q, qd,
    qdd`` (T, n), ``lam`` (T, m), ``torques`` {driver: (T,)}.
    """
    t = np.atleast_1d(real_array("t", t))
    if t.ndim != 1:
        raise ParameterError(f"t must be a time or a 1-D array of times (s), got shape {t.shape}")
    mech = model.mech
    Q, QD, QDD = (np.empty((len(t), mech.n)) for _ in range(3))
    L = np.empty((len(t), mech.m))
    for k, tt in enumerate(t):
        guess = model.ideal_state(tt)[0]
        Q[k], QD[k], QDD[k] = kinematic_state(mech, guess, tt)
        L[k] = inverse_dynamics(mech, Q[k], QD[k], QDD[k], tt)
    return {"t": t, "q": Q, "qd": QD, "qdd": QDD, "lam": L, "torques": driving_torques(mech, L)}


def simulate_ideal(model, t_end: float, t_eval=None, rtol: float | None = None, atol: float | None = None,
                   backend: str = "auto"):
    """Integrate the ideal mechanism's Baumgarte DAE from the closed-form state at t = 0 to ``t_end`` > 0 (s)."""
    _check_times(0.0, t_end)
    check_arguments(rtol=rtol, atol=atol)
    s = model.params["solver"]
    q0, qd0, _ = model.ideal_state(0.0)
    return simulate(model.mech, (0.0, t_end), q0, qd0, t_eval=t_eval, alpha=s["baumgarte_alpha"],
                    beta=s["baumgarte_beta"], rtol=rtol or s["rtol"], atol=atol or s["atol"], backend=backend)


def simulate_clearance(model, t_end: float, t_eval=None, cmodel: ClearanceModel | None = None,
                       t_start: float = 0.0, rtol: float | None = None, atol: float | None = None,
                       backend: str = "auto") -> tuple[ClearanceModel, ClearanceResult]:
    """Clearance simulation from the ideal state at ``t_start`` (journal centred in its bearing).

    Returns ``(cmodel, result)``. ``t_end`` > ``t_start`` (s); ``rtol`` in (0, 1) and ``atol`` > 0 default to
    the parameter set's.
    """
    _check_times(t_start, t_end)
    check_arguments(rtol=rtol, atol=atol)
    s = model.params["solver"]
    cm = cmodel if cmodel is not None else clearance_model(model)
    q0, qd0, _ = model.ideal_state(t_start)
    res = cm.simulate((t_start, t_end), q0, qd0, t_eval=t_eval, rtol=rtol or s["rtol"], atol=atol or s["atol"],
                      backend=backend)
    return cm, res


# --------------------------------------------------------------------------- end-effector errors
def _link_vars(rho, rhod, rhodd):
    """Length/angle of a vector rho (..., 2) and their first two time derivatives."""
    L = np.hypot(rho[..., 0], rho[..., 1])
    th = np.arctan2(rho[..., 1], rho[..., 0])
    cross = lambda a, b: a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]  # noqa: E731
    Ld = np.sum(rho * rhod, axis=-1) / L
    thd = cross(rho, rhod) / L ** 2
    Ldd = (np.sum(rhod * rhod, axis=-1) + np.sum(rho * rhodd, axis=-1)) / L - Ld ** 2 / L
    thdd = cross(rho, rhodd) / L ** 2 - 2.0 * Ld * thd / L
    return L, th, Ld, thd, Ldd, thdd


def _states(gs, **arrays) -> list:
    """States (..., n) of the mechanism, finite and of one shape; a bad one raises ParameterError naming it."""
    n = gs.mech.n
    out = [real_array(k, v, shape=(n,), batch=True) for k, v in arrays.items()]
    shapes = {k: a.shape for k, a in zip(arrays, out)}
    if len(set(shapes.values())) > 1:
        first = next(iter(shapes))
        k = next(k for k in shapes if shapes[k] != shapes[first])
        raise ParameterError(f"{k} must have the shape of {first}, {shapes[first]}, got {shapes[k]}")
    return out


def chain1_variables(gs: GearShift, q, qd, qdd) -> dict:
    """Effective link lengths and angles of chain 1 (``l_1k``, ``theta_1k`` and rates, (..., 2) each).

    Effective link 11 runs from A1 to the start of link 12 (the journal centre
    when B1 has clearance), effective link 12 from there to the end point E.
    """
    q, qd, qdd = _states(gs, q=q, qd=qd, qdd=qdd)
    mech, h = gs.mech, gs.l / 2
    P = mech.point_position(q, "l12", (-h, 0.0))
    E = mech.point_position(q, "l12", (h, 0.0))

    def acc(body, pt):
        k = mech.coordinate(body, "x")
        As = np.stack([np.cos(q[..., k + 2]) * pt[0], np.sin(q[..., k + 2]) * pt[0]], axis=-1)
        w, a = qd[..., k + 2][..., None], qdd[..., k + 2][..., None]
        perp = np.stack([-As[..., 1], As[..., 0]], axis=-1)
        return qdd[..., k:k + 2] + a * perp - w * w * As

    vP = mech.point_velocity(q, qd, "l12", (-h, 0.0))
    vE = mech.point_velocity(q, qd, "l12", (h, 0.0))
    aP, aE = acc("l12", (-h, 0.0)), acc("l12", (h, 0.0))
    v1 = _link_vars(P - gs.A[0], vP, aP)
    v2 = _link_vars(E - P, vE - vP, aE - aP)
    return {key: np.stack([v1[i], v2[i]], axis=-1) for i, key in enumerate(("l", "theta", "ld", "thetad", "ldd", "thetadd"))} | {
        "E": E, "vE": vE, "aE": aE}


def end_effector_errors(gs: GearShift, q, qd, qdd, q_id, qd_id, qdd_id) -> dict:
    """End-point position/velocity/acceleration errors: direct and linearised (Eqs. 21-22).

    Inputs are sampled clearance states and the ideal states at the same times
    ((T, 21) each). Direct: difference of the end points. Linearised:
    ``dp = sum_k dp/dl_1k dl_1k + dp/dtheta_1k dtheta_1k`` (Eq. 21) and its time
    derivatives (Eq. 22; the terms in the rates of ``dl_1k`` are kept, which the
    page's printed Eq. 22 omits). Returns (T, 2) arrays ``dp, dv, da`` and
    ``dp_lin, dv_lin, da_lin``, plus ``dl, dtheta`` (T, 2).
    """
    q, qd, qdd, q_id, qd_id, qdd_id = _states(gs, q=q, qd=qd, qdd=qdd, q_id=q_id, qd_id=qd_id, qdd_id=qdd_id)
    c = chain1_variables(gs, q, qd, qdd)
    i = chain1_variables(gs, q_id, qd_id, qdd_id)
    dl = c["l"] - i["l"]
    dth = np.angle(np.exp(1j * (c["theta"] - i["theta"])))
    dld, dthd = c["ld"] - i["ld"], c["thetad"] - i["thetad"]
    dldd, dthdd = c["ldd"] - i["ldd"], c["thetadd"] - i["thetadd"]
    L, th, w, a = i["l"], i["theta"], i["thetad"], i["thetadd"]
    u = np.stack([np.cos(th), np.sin(th)], axis=-1)        # (T, 2 links, 2)
    up = np.stack([-np.sin(th), np.cos(th)], axis=-1)
    X = lambda s: s[..., None]  # noqa: E731
    dp = np.sum(u * X(dl) + X(L) * up * X(dth), axis=-2)
    dv = np.sum(u * X(dld) + up * X(w * dl) + up * X(L * dthd) - u * X(L * w * dth), axis=-2)
    da = np.sum(u * X(dldd) + 2 * up * X(dld * w) + (up * X(a) - u * X(w * w)) * X(dl) + up * X(L * dthdd)
                - 2 * u * X(L * w * dthd) - (u * X(L * a) + up * X(L * w * w)) * X(dth), axis=-2)
    return {"dp": c["E"] - i["E"], "dv": c["vE"] - i["vE"], "da": c["aE"] - i["aE"],
            "dp_lin": dp, "dv_lin": dv, "da_lin": da, "dl": dl, "dtheta": dth}


# --------------------------------------------------------------------------- slider-crank
@dataclass
class SliderCrank:
    """A built slider-crank (crank ``r``, rod ``L``, crank speed ``omega``)."""

    params: dict
    mech: Mechanism
    r: float
    L: float
    omega: float
    phi0: float

    def ideal_state(self, t: float):
        """Closed-form ``(q, qd, qdd)`` (9,) at time t (s)."""
        r, L, w = self.r, self.L, self.omega
        phi = self.phi0 + w * t
        x, xd, xdd = slider_closed_form(phi, w, r, L)
        c, s = math.cos(phi), math.sin(phi)
        # crank CoM at r/2
        q = np.zeros(9)
        qd = np.zeros(9)
        qdd = np.zeros(9)
        q[0:3] = (r / 2 * c, r / 2 * s, phi)
        qd[0:3] = (-r / 2 * s * w, r / 2 * c * w, w)
        qdd[0:3] = (-r / 2 * c * w * w, -r / 2 * s * w * w, 0.0)
        # rod from A = r u to B = (x, 0); angle beta, sin(beta) = -r sin(phi) / L
        Ax, Ay, Avx, Avy = r * c, r * s, -r * s * w, r * c * w
        Aax, Aay = -r * c * w * w, -r * s * w * w
        beta = math.atan2(-Ay, x - Ax)
        bd = -(r * c * w) / (L * math.cos(beta))
        # d/dt(L sin b) = -d/dt(r sin phi): L cos b bd = -r cos phi w ; differentiate again
        bdd = (L * math.sin(beta) * bd * bd + r * s * w * w) / (L * math.cos(beta))
        q[3:6] = ((Ax + x) / 2, Ay / 2, beta)
        qd[3:6] = ((Avx + xd) / 2, Avy / 2, bd)
        qdd[3:6] = ((Aax + xdd) / 2, Aay / 2, bdd)
        q[6:9] = (x, 0.0, 0.0)
        qd[6:9] = (xd, 0.0, 0.0)
        qdd[6:9] = (xdd, 0.0, 0.0)
        return q, qd, qdd


def slider_closed_form(phi, omega, r: float, L: float):
    """Exact slider position, velocity, acceleration of an in-line slider-crank at constant crank speed.

    ``x = r cos(phi) + S``, ``S = sqrt(L^2 - r^2 sin^2 phi)``;
    ``xd = omega (-r sin phi + S')``, ``xdd = omega^2 (-r cos phi + S'')`` with
    ``S' = -r^2 sin phi cos phi / S`` and ``S'' = -r^2 cos 2phi / S - r^4 sin^2 phi cos^2 phi / S^3``.

    >>> x, xd, xdd = slider_closed_form(0.0, 10.0, 0.05, 0.12)
    >>> round(x, 12), round(xdd, 9), round(-0.05 * 100 * (1 + 0.05 / 0.12), 9)
    (0.17, -7.083333333, -7.083333333)
    """
    phi = real_array("phi", phi)
    omega = real("omega", omega, unit="rad/s")
    r = real("r", r, low=0.0, open_low=True, unit="m")
    L = real("L", L, low=r, open_low=True, unit="m")
    s, c = np.sin(phi), np.cos(phi)
    S = np.sqrt(L * L - r * r * s * s)
    Sp = -r * r * s * c / S
    Spp = -r * r * np.cos(2 * phi) / S - r ** 4 * s * s * c * c / S ** 3
    x, xd, xdd = r * c + S, omega * (-r * s + Sp), omega ** 2 * (-r * c + Spp)
    if np.ndim(x) == 0:
        return float(x), float(xd), float(xdd)
    return x, xd, xdd


def build_slider_crank(params: dict | None = None) -> SliderCrank:
    """Build the slider-crank validation mechanism (3 bodies, 9 coordinates, 9 rows)."""
    p = load_slider_crank() if params is None else params
    g, mo = p["geometry"], p["motion"]
    r, L = g["crank_length"], g["rod_length"]
    if not r < L:
        raise ParameterError(f"slider-crank: crank_length = {r} m must be shorter than rod_length = {L} m")
    bodies = [Body("crank", g["crank_mass"], g["crank_inertia"]), Body("rod", g["rod_mass"], g["rod_inertia"]),
              Body("slider", g["slider_mass"], g["slider_inertia"])]
    joints = [
        GroundPin("O", "crank", (-r / 2, 0.0), (0.0, 0.0)),
        Pin("A", "crank", (r / 2, 0.0), "rod", (-L / 2, 0.0)),
        Pin("B", "rod", (L / 2, 0.0), "slider", (0.0, 0.0)),
        Driver("slide_y", "slider", Constant(0.0), coord="y", motor=False),
        AngleLock("slide_theta", GROUND, "slider"),
        Driver("drive", "crank", ConstantSpeed(mo["crank_angle0"], mo["crank_speed"])),
    ]
    mech = Mechanism(bodies, joints, name="slider-crank")
    return SliderCrank(p, mech, r, L, mo["crank_speed"], mo["crank_angle0"])



__all__ = ["CLEARANCE_JOINTS", "SCHEMA", "SLIDER_CRANK_SCHEMA", "load_parameters", "load_slider_crank", "with_changes", "chain_ik", "ShiftStroke", "ChainDrive", "GearShift", "build_gearshift", "clearance_specs", "clearance_model", "ideal_motion", "simulate_ideal", "simulate_clearance", "chain1_variables", "end_effector_errors", "SliderCrank", "slider_closed_form", "build_slider_crank"]
