"""Parameter set of a 6-UPS Gough-Stewart platform and its YAML loader.

The file schema is the one of the Models page of the book: ``name, gravity,
base_joints, platform_joints, home_pose, ujoint_axes ('auto' or six vectors),
platform{mass, com, inertia}, cylinder{mass, com, inertia}, rod{mass, com,
inertia}, friction{ujoint_viscous, sjoint_viscous, prismatic_viscous}``, the
joint limits ``limits{length_min, length_max, ujoint_max_angle,
sjoint_max_angle}`` and, for simulations, the blocks ``trajectory{duration,
amplitude, frequency, phase, initial_error}`` and ``controller{kp, kd, ki,
step}`` (``limits``, ``trajectory`` and ``controller`` are each optional as a
whole; every field inside a present block is required; without ``limits`` no
stroke or joint-angle limit is checked). Units are SI (m, kg, kg m^2, rad,
N m s, N s/m); each shipped file names them in comments.

Joint angles are measured from each joint's neutral direction, the leg
direction ``s_i0`` at ``home_pose``: the U-joint angle is the angle between
``s_i`` and ``s_i0`` (base frame), the S-joint angle the angle between ``s_i``
and ``R s_i0`` (the socket axis, fixed in the platform).

>>> m = load("stewart/tsai2000.yaml")
>>> m.name, m.base_joints.shape, round(m.platform.mass, 3)
('tsai2000', (6, 3), 1.5)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path, PurePath

import numpy as np
import yaml

from robolib.core.checks import real, real_array
from robolib.core.errors import ParameterError, ParameterFileError, SingularityError
from robolib.core.params import number, read_yaml, resolve_data_path, text, validate, vector
from robolib.core.rotations import ZERO_NORM_TOL, cross, dot, rpy_matrix

#: Relative tolerance for the symmetry / positive semi-definiteness of an inertia tensor.
INERTIA_TOL = 1e-12
#: Smallest admissible ``|s_i x a_i|`` at home (U axis nearly along the leg = U-joint singularity).
UAXIS_TOL = 1e-6

_BODY = {
    "mass": number(unit="kg", nonnegative=True),
    "com": vector(3, unit="m"),
    "inertia": vector(3, 3, unit="kg m^2"),
}

SCHEMA = {
    "name": text(),
    "gravity": vector(3, unit="m/s^2"),
    "base_joints": vector(6, 3, unit="m"),
    "platform_joints": vector(6, 3, unit="m"),
    "home_pose": vector(6, unit="m, rad"),
    "ujoint_axes": text(choices=["auto"]),  # or a 6x3 array, see _schema_for
    "platform": {
        "mass": number(unit="kg", positive=True),
        "com": vector(3, unit="m"),
        "inertia": vector(3, 3, unit="kg m^2"),
    },
    "cylinder": dict(_BODY),
    "rod": dict(_BODY),
    "friction": {
        "ujoint_viscous": number(unit="N m s", nonnegative=True),
        "sjoint_viscous": number(unit="N m s", nonnegative=True),
        "prismatic_viscous": number(unit="N s/m", nonnegative=True),
    },
}

TRAJECTORY_SCHEMA = {
    "duration": number(unit="s", positive=True),
    "amplitude": vector(6, unit="m, rad"),
    "frequency": vector(6, unit="rad/s"),
    "phase": vector(6, unit="rad"),
    "initial_error": vector(6, unit="m, rad"),
}

LIMITS_SCHEMA = {
    "length_min": number(unit="m", nonnegative=True),
    "length_max": number(unit="m", positive=True),
    "ujoint_max_angle": number(unit="rad", positive=True),
    "sjoint_max_angle": number(unit="rad", positive=True),
}

#: Limits of a model without a ``limits`` block: nothing is checked.
NO_LIMITS = {"length_min": 0.0, "length_max": np.inf, "ujoint_max_angle": np.pi, "sjoint_max_angle": np.pi}

CONTROLLER_SCHEMA = {
    "kp": number(unit="1/s^2", nonnegative=True),
    "kd": number(unit="1/s", nonnegative=True),
    "ki": number(unit="1/s^3", nonnegative=True),
    "step": number(unit="s", positive=True),
}


@dataclass(frozen=True)
class Body:
    """A rigid body: ``mass`` (kg), ``com`` (3,) m and ``inertia`` (3, 3) kg m^2 about the CoM.

    ``com`` and ``inertia`` are expressed in the body's own frame (leg frame for
    cylinder and rod, platform frame for the platform).
    """

    mass: float
    com: np.ndarray
    inertia: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "mass", real("Body mass", self.mass, low=0.0, unit="kg"))
        object.__setattr__(self, "com", real_array("Body com", self.com, shape=(3,)))
        object.__setattr__(self, "inertia", real_array("Body inertia", self.inertia, shape=(3, 3)))


@dataclass(frozen=True)
class StewartModel:
    """A 6-UPS platform: geometry, bodies, friction, optional simulation blocks.

    ``ujoint_axes`` holds the resolved fixed U axes ``a_i`` (6, 3), unit length,
    base frame (``auto``: ``normalize(e_z x s_i0)`` at ``home_pose``).
    ``limits`` is the ``limits`` block (``length_min, length_max`` m,
    ``ujoint_max_angle, sjoint_max_angle`` rad) or None (no limits checked).
    A model built directly (or by :meth:`with_`) has its fields checked: a wrong shape, type or
    sign raises ``ParameterError`` naming the field (:func:`from_dict` names the file's field first).
    """

    @property
    def joint_limits(self) -> dict:
        """The limits in force: the ``limits`` block, or :data:`NO_LIMITS`."""
        return dict(NO_LIMITS) if self.limits is None else dict(self.limits)

    @property
    def home_directions(self) -> np.ndarray:
        """Leg directions ``s_i0`` at ``home_pose`` (6, 3): the joints' neutral directions."""
        return self.packed[OFF_S0:OFF_S0 + 18].reshape(6, 3).copy()

    name: str
    gravity: np.ndarray
    base_joints: np.ndarray
    platform_joints: np.ndarray
    home_pose: np.ndarray
    ujoint_axes: np.ndarray
    platform: Body
    cylinder: Body
    rod: Body
    ujoint_viscous: float = 0.0
    sjoint_viscous: float = 0.0
    prismatic_viscous: float = 0.0
    trajectory: dict | None = None
    controller: dict | None = None
    ujoint_axes_auto: bool = True
    source: str = "<model>"
    limits: dict | None = None
    packed: np.ndarray = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        _check_fields(self)
        object.__setattr__(self, "packed", pack(self))

    def with_(self, **changes) -> "StewartModel":
        """A copy with some fields changed (``packed`` is recomputed).

        >>> m = load("stewart/tsai2000.yaml").with_(ujoint_viscous=0.5)
        >>> m.ujoint_viscous
        0.5
        """
        known = {f.name for f in fields(self)} - {"packed"}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ParameterError(f"with_: unknown field(s) {unknown} of StewartModel (known: {sorted(known)})")
        return replace(self, **changes, packed=None)


# ----------------------------------------------------------------- packed layout
# The compiled kernels take one flat float64 array (cheap to pass to numba).
OFF_B, OFF_P, OFF_A, OFF_G = 0, 18, 36, 54
OFF_MP, OFF_CP, OFF_IP = 57, 58, 61
OFF_MC, OFF_CC, OFF_IC = 70, 71, 74
OFF_MR, OFF_CR, OFF_IR = 83, 84, 87
OFF_FU, OFF_FS, OFF_FP = 96, 97, 98
#: Limits: length_min, length_max (m), cos(ujoint_max_angle), cos(sjoint_max_angle); home directions s_i0.
OFF_LMIN, OFF_LMAX, OFF_CUMAX, OFF_CSMAX, OFF_S0 = 99, 100, 101, 102, 103
PACKED_SIZE = 121


def pack(m: StewartModel) -> np.ndarray:
    """Flatten a model into the ``(99,)`` float array the compiled kernels read."""
    out = np.empty(PACKED_SIZE)
    out[OFF_B:OFF_B + 18] = np.ravel(m.base_joints)
    out[OFF_P:OFF_P + 18] = np.ravel(m.platform_joints)
    out[OFF_A:OFF_A + 18] = np.ravel(m.ujoint_axes)
    out[OFF_G:OFF_G + 3] = m.gravity
    for (om, oc, oi), b in (((OFF_MP, OFF_CP, OFF_IP), m.platform), ((OFF_MC, OFF_CC, OFF_IC), m.cylinder),
                            ((OFF_MR, OFF_CR, OFF_IR), m.rod)):
        out[om] = b.mass
        out[oc:oc + 3] = b.com
        out[oi:oi + 9] = np.ravel(b.inertia)
    out[OFF_FU], out[OFF_FS], out[OFF_FP] = m.ujoint_viscous, m.sjoint_viscous, m.prismatic_viscous
    lim = m.joint_limits
    out[OFF_LMIN], out[OFF_LMAX] = lim["length_min"], lim["length_max"]
    out[OFF_CUMAX], out[OFF_CSMAX] = np.cos(lim["ujoint_max_angle"]), np.cos(lim["sjoint_max_angle"])
    R = rpy_matrix(m.home_pose[3:])
    L = m.home_pose[:3] + m.platform_joints @ R.T - m.base_joints
    out[OFF_S0:OFF_S0 + 18] = np.ravel(L / np.linalg.norm(L, axis=1)[:, None])
    return out


_ARRAY_FIELDS = {"gravity": (3,), "base_joints": (6, 3), "platform_joints": (6, 3), "home_pose": (6,),
                 "ujoint_axes": (6, 3)}
_VISCOUS_UNITS = {"ujoint_viscous": "N m s", "sjoint_viscous": "N m s", "prismatic_viscous": "N s/m"}
#: Largest deviation of a U axis' norm from 1 in a model built directly (``from_dict`` normalises them).
UNIT_AXIS_TOL = 1e-9


def _check_fields(m: StewartModel) -> None:
    """Check (and convert) the fields of a model built directly (``StewartModel(...)``, :meth:`~StewartModel.with_`).

    :func:`from_dict` checks a parameter file first (naming the file's fields); this is the same
    contract for a model assembled in code: ``ParameterError`` naming the field and what it must be.
    """
    for k in ("name", "source"):
        v = getattr(m, k)
        if not isinstance(v, str):
            raise ParameterError(f"StewartModel {k} must be text, got {v!r:.60} ({type(v).__name__})")
    for k, shape in _ARRAY_FIELDS.items():
        object.__setattr__(m, k, real_array(f"StewartModel {k}", getattr(m, k), shape=shape))
    for k in ("platform", "cylinder", "rod"):
        v = getattr(m, k)
        if not isinstance(v, Body):
            raise ParameterError(f"StewartModel {k} must be a Body(mass, com, inertia), got {type(v).__name__}")
    if not m.platform.mass > 0:
        raise ParameterError(f"StewartModel platform mass must be positive (kg), got {m.platform.mass!r}")
    for k, unit in _VISCOUS_UNITS.items():
        object.__setattr__(m, k, real(f"StewartModel {k}", getattr(m, k), low=0.0, unit=unit))
    if not isinstance(m.ujoint_axes_auto, (bool, np.bool_)):
        raise ParameterError(f"StewartModel ujoint_axes_auto must be True or False, got {m.ujoint_axes_auto!r:.60}")
    norms = np.linalg.norm(m.ujoint_axes, axis=1)
    if np.abs(norms - 1.0).max() > UNIT_AXIS_TOL:
        raise ParameterError(f"StewartModel ujoint_axes must be unit vectors (6, 3), got row norms {norms.tolist()}")
    R = rpy_matrix(m.home_pose[3:])
    L = m.home_pose[:3] + m.platform_joints @ R.T - m.base_joints
    lengths = np.linalg.norm(L, axis=1)
    if np.any(lengths < 1e-9):
        raise ParameterError(f"StewartModel home_pose gives a zero-length leg ({int(np.argmin(lengths)) + 1})")
    sin_ua = np.linalg.norm(np.cross(L / lengths[:, None], m.ujoint_axes), axis=1)
    if np.any(sin_ua < UAXIS_TOL):
        raise ParameterError(f"StewartModel ujoint_axes: U axis {int(np.argmin(sin_ua))} lies along its leg at "
                             f"home_pose (U-joint singularity)")
    for k, schema in (("trajectory", TRAJECTORY_SCHEMA), ("controller", CONTROLLER_SCHEMA), ("limits", LIMITS_SCHEMA)):
        v = getattr(m, k)
        if v is not None:
            object.__setattr__(m, k, validate(v, schema, source="StewartModel", prefix=f"{k}."))
    lim = m.limits
    if lim is not None:
        why = _limits_error(lim)
        if why:
            raise ParameterError(f"StewartModel {why}")
        object.__setattr__(m, "limits", {k: float(v) for k, v in lim.items()})


def auto_ujoint_axes(base_joints, platform_joints, home_pose) -> np.ndarray:
    """``a_i = normalize(e_z x s_i0)`` with ``s_i0`` the leg direction at ``home_pose``: (6, 3).

    >>> m = load("stewart/tsai2000.yaml")
    >>> bool(np.allclose(auto_ujoint_axes(m.base_joints, m.platform_joints, m.home_pose), m.ujoint_axes))
    True
    """
    home_pose = np.asarray(home_pose, dtype=float)
    R = rpy_matrix(home_pose[3:])
    L = home_pose[:3] + np.asarray(platform_joints) @ R.T - np.asarray(base_joints)
    s0 = _normalize(L, "home leg vector")
    return _normalize(cross(np.array([0.0, 0.0, 1.0]), s0), "e_z x s_i0 (a vertical leg at home)")


def _normalize(v, name):
    """:func:`robolib.core.rotations.normalize` (the same arithmetic), without its function-level import.

    (That import warns -- ``ImportWarning: __package__ != __spec__.parent`` -- once ``robolib.core.rotations``,
    the short name, has been imported: an error where warnings are errors, as in the fuzzing harness.)
    """
    v = np.asarray(v, dtype=float)
    n = np.sqrt(dot(v, v))
    if np.any(n <= ZERO_NORM_TOL):
        raise SingularityError(f"{name} has zero length and no direction")
    return v / n[..., None]


def _check_inertia(I, where: str):
    I = np.asarray(I, dtype=float)
    scale = max(np.abs(I).max(), 1e-300)
    if np.abs(I - I.T).max() > INERTIA_TOL * scale:
        raise ParameterFileError(f"{where} must be symmetric, got {I.tolist()}")
    if np.linalg.eigvalsh(I).min() < -INERTIA_TOL * scale:
        raise ParameterFileError(f"{where} must be positive semi-definite, got {I.tolist()}")


def _limits_error(lim) -> str | None:
    """What is wrong with a ``limits`` block (length_min < length_max, joint angles in (0, pi]), or None."""
    if not lim["length_min"] < lim["length_max"]:
        return (f"limits.length_max must exceed limits.length_min, got {lim['length_max']:g} <= "
                f"{lim['length_min']:g} m")
    for k in ("ujoint_max_angle", "sjoint_max_angle"):
        if lim[k] > np.pi:
            return f"limits.{k} must be in (0, pi] rad, got {lim[k]:g}"
    return None


def from_dict(data, source: str = "<dict>") -> StewartModel:
    """Validate a parsed parameter mapping (same schema as the YAML file) into a model.

    >>> d = yaml.safe_load(resolve_data_path("stewart/tsai2000.yaml").read_text())
    >>> d["rod"]["mass"] = -1
    >>> from_dict(d)
    Traceback (most recent call last):
        ...
    robolib.ParameterFileError: <dict>: field 'rod.mass' must be non-negative, got -1.0 (kg)
    """
    if not isinstance(data, dict):
        raise ParameterFileError(f"{source}: top level must be a mapping of fields, got {type(data).__name__}")
    schema = dict(SCHEMA)
    if not isinstance(data.get("ujoint_axes", "auto"), str):
        schema["ujoint_axes"] = vector(6, 3)
    if "trajectory" in data:
        schema["trajectory"] = TRAJECTORY_SCHEMA
    if "controller" in data:
        schema["controller"] = CONTROLLER_SCHEMA
    if "limits" in data:
        schema["limits"] = LIMITS_SCHEMA
    p = validate(data, schema, source=source)
    for body in ("platform", "cylinder", "rod"):
        _check_inertia(p[body]["inertia"], f"{source}: field '{body}.inertia'")
    auto = isinstance(p["ujoint_axes"], str)
    if auto:
        axes = auto_ujoint_axes(p["base_joints"], p["platform_joints"], p["home_pose"])
    else:
        norms = np.linalg.norm(p["ujoint_axes"], axis=1)
        if np.any(norms < 1e-12):
            raise ParameterFileError(f"{source}: field 'ujoint_axes' has a zero vector")
        axes = p["ujoint_axes"] / norms[:, None]
    R = rpy_matrix(p["home_pose"][3:])
    L = p["home_pose"][:3] + p["platform_joints"] @ R.T - p["base_joints"]
    lengths = np.linalg.norm(L, axis=1)
    if np.any(lengths < 1e-9):
        raise ParameterFileError(f"{source}: field 'home_pose' gives a zero-length leg")
    sin_ua = np.linalg.norm(np.cross(L / lengths[:, None], axes), axis=1)
    if np.any(sin_ua < UAXIS_TOL):
        raise ParameterFileError(f"{source}: field 'ujoint_axes': U axis {int(np.argmin(sin_ua))} lies along "
                                 f"its leg at home (U-joint singularity)")
    limits = p.get("limits")
    if limits is not None:
        why = _limits_error(limits)
        if why:
            raise ParameterFileError(f"{source}: field {why}")
        bad = np.flatnonzero((lengths < limits["length_min"]) | (lengths > limits["length_max"]))
        if bad.size:
            i = int(bad[0])
            raise ParameterFileError(f"{source}: field 'home_pose' puts leg {i + 1} at length {lengths[i]:.6g} m, "
                                     f"outside limits.length_min..length_max = {limits['length_min']:g}.."
                                     f"{limits['length_max']:g} m")
        limits = {k: float(v) for k, v in limits.items()}
    body = {k: Body(p[k]["mass"], p[k]["com"], p[k]["inertia"]) for k in ("platform", "cylinder", "rod")}
    fr = p["friction"]
    return StewartModel(
        name=p["name"], gravity=p["gravity"], base_joints=p["base_joints"],
        platform_joints=p["platform_joints"], home_pose=p["home_pose"], ujoint_axes=axes,
        platform=body["platform"], cylinder=body["cylinder"], rod=body["rod"],
        ujoint_viscous=fr["ujoint_viscous"], sjoint_viscous=fr["sjoint_viscous"],
        prismatic_viscous=fr["prismatic_viscous"], trajectory=p.get("trajectory"),
        controller=p.get("controller"), ujoint_axes_auto=auto, source=source, limits=limits,
    )


def load(path: str | Path) -> StewartModel:
    """Read a Stewart-platform parameter file (``path`` or ``data/<path>``).

    Unknown, missing or mistyped fields raise :class:`robolib.ParameterFileError`
    naming the file and the dotted field.

    >>> load("stewart/hydraulic.yaml").name
    'hydraulic'
    """
    if not isinstance(path, (str, PurePath)) or not str(path):
        raise ParameterError(f"path must be the path of a parameter file (str or Path), got {path!r:.60} "
                             f"({type(path).__name__})")
    p = resolve_data_path(path)
    try:
        data = read_yaml(p.read_text())
    except yaml.YAMLError as exc:
        raise ParameterFileError(f"{p}: not valid YAML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ParameterFileError(f"{p}: cannot be read as a text parameter file ({exc})") from None
    return from_dict(data, source=str(p))


def point_mass_legs(m: StewartModel) -> StewartModel:
    """The same platform with leg bodies reduced to point masses on the leg axis (``m``: a model).

    Used to check that virtual work equals Newton-Euler when leg spin is irrelevant.

    >>> m = point_mass_legs(load("stewart/tsai2000.yaml"))
    >>> float(np.abs(m.cylinder.inertia).max()), m.cylinder.com.tolist()
    (0.0, [0.0, 0.0, 0.5])
    """
    _check_model(m)
    z = np.zeros((3, 3))
    cyl = Body(m.cylinder.mass, np.array([0.0, 0.0, m.cylinder.com[2]]), z)
    rod = Body(m.rod.mass, np.array([0.0, 0.0, m.rod.com[2]]), z)
    return m.with_(cylinder=cyl, rod=rod)


def _check_model(m) -> None:
    if not isinstance(m, StewartModel):
        raise ParameterError(f"model must be a StewartModel (from stewart.load), got {type(m).__name__}")
