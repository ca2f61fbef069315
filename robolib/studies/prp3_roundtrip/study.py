"""The chapter "3-PRP FK/IK round trip" as one study: :func:`run`.

The study repeats Yu, Sun and Ning's check of their closed-form kinematics (ten
random inputs through forward then inverse kinematics), then a large round trip
with the law of its error near the mode boundaries, the working modes and the
paper's root-selection rules, the workspace and its volume, and the Jacobian's
conditioning. Every finding is a claim of the returned
:class:`robolib.book.result.StudyResult`; the notebook ``notebooks/prp3_roundtrip.md``
tells the story around it.

>>> from robolib import study
>>> sorted(study.defaults("prp3_roundtrip"))
['geometry', 'n_samples', 'n_workspace', 'quick', 'seed']

Lengths are in the geometry's unit (the paper's: mm), angles in rad unless a
name ends in ``_deg``; volumes in mm³ (the tables print dm³ = 10⁶ mm³).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from robolib.book.claims import ClaimsRegister
from robolib.book.notebook import explore, markdown_table, number_caption, parameter_table, yaml_parameter_rows
from robolib.book.result import Stages, StudyResult
from robolib.book.text import power_text, sci_text  # noqa: F401  (the chapter's names for them)
from robolib.core.errors import ParameterError
from robolib.core.params import Parameter, declare_parameters
from robolib.prp3 import drawing, sampling
from robolib.prp3 import kinematics as kin

# ---- settings of the chapter (criteria are written here, before the results) ------------------------
#: Sample sizes are capped at this with ``quick=True``.
QUICK_CAP = 20_000
#: Smallest ``n_samples`` / ``n_workspace`` the experiments can use (the error-law fit needs bins of samples).
MIN_SAMPLES = 2_000
#: "Far from a mode boundary": at least this far for a slider [mm] and for the crank [rad].
FAR_LEN, FAR_ANG = 1.0, 1e-3
#: Round-trip targets far from a boundary [mm], [rad].
TOL_LEN, TOL_ANG = 1e-9, 1e-12
#: Largest slider [mm] and crank [rad] round-trip errors over the whole sample, next to boundaries too.
ALL_SLIDER_TOL, ALL_ANGLE_TOL = 1e-6, 1e-9
#: Error-law fit: logarithmic bins, samples drawn per bin, smallest distance used [mm].
LAW_BINS, LAW_DRAWS, LAW_LO = 40, 20, 1e-4
#: The predicted exponent of the largest slider error against the distance, and its tolerance.
PREDICTED_EXPONENT, EXPONENT_TOL = -1.0, 0.1
#: The exponent of the plain per-bin maxima must be below this (clearly growing toward the boundary, far from the
#: exponent 0 of an error that does not grow there).
RAW_EXPONENT_MAX = -0.6
#: "A few roundings of D": the fitted prefactor C of error = C / distance is dD / 2 (the propagation), so the
#: rounding dD = 2 C it implies must lie between these multiples of eps*l2**2.
ROUNDINGS_MIN, ROUNDINGS_MAX = 1.0, 10.0
#: The paper's rules "fail" if all three are right on fewer than this share of the inputs.
RULES_ALL_HIT_MAX = 0.99
#: A rule "picks the true root" within this: times l2 for a slider, in rad for the crank
#: (:data:`robolib.prp3.kinematics.RULE_MATCH_TOL`).
ROOT_MATCH_TOL = kin.RULE_MATCH_TOL
#: Voxel edges of Table S2 [mm], the edge of the voxel volume of Table S3 [mm], and the shares of the sample.
VOXELS = (40.0, 20.0, 10.0, 5.0)
WORKSPACE_VOXEL = 20.0
VOXEL_FRACTIONS = (8, 4, 2, 1)
#: Undersampled voxel count: fewer samples per voxel than this, and more growth from half to all samples.
FINE_SPV_MAX, FINE_GROWTH_MIN = 2.0, 0.10
#: Two estimates "agree" within this many standard errors (of the hit-or-miss estimate, whose standard error is sound).
N_SIGMA = 4.0
#: Tail of the Jacobian volume's integrand ``|det dJ/dq|``: the Hill estimate of its tail index from the TAIL_K largest
#: values of the default mode must lie between these (above 1: the mean, the volume, exists; below 4: the fourth moment
#: is infinite, so the sample variance, and with it the standard error computed from the sample, is decided by the few
#: largest values and is not a reliable uncertainty). The square root of the FK predicts 2 (variance just infinite).
TAIL_K, TAIL_INDEX_MIN, TAIL_INDEX_MAX, TAIL_INDEX_PREDICTED = 100, 1.0, 4.0, 2.0
#: Caps of the secondary samples: paper's rules, hit-or-miss volume, mirror-symmetry check.
N_RULES_MAX, N_HIT_OR_MISS_MAX, N_SYMMETRY_MAX = 200_000, 400_000, 100_000
#: Mirror symmetry holds to this [mm].
SYMMETRY_TOL = 1e-9
#: Table 1: the first TABLE_ROWS reachable inputs of TABLE_DRAWS uniform draws.
#: The chapter's tables in the order they are built; those of EVIDENCE_TABLES are shown on the evidence page
#: (numbered S1, S2, ...), the others in the lecture (numbered 1, 2, ...).
TABLES = ("table1", "table_e1", "table2", "table3", "table_e2")
EVIDENCE_TABLES = ("table_e1", "table_e2", "table3")
TABLE_ROWS, TABLE_DRAWS = 10, 50
#: Samples of each volume route in exercise 3.
EX3_N = 10_000
#: The home input (lx [mm], ly [mm], theta [rad]) whose mode is the default mode.
HOME = kin.HOME_INPUT
#: Crank angles [deg] and grid points per slider axis of the conditioning maps; the inverse-singularity contour.
CONDITION_THETAS_DEG = (-45.0, 0.0, 45.0)
CONDITION_GRID, CONDITION_GRID_QUICK = 161, 41
INVERSE_LEVEL = 0.02
#: Claim ``prp3_condition_singular``: the grid points of the conditioning maps whose condition number is in the top
#: CONDITION_TOP share, and the singularity measure (forward or inverse) below which a point lies "at a singularity".
CONDITION_TOP, SINGULAR_LEVEL = 0.01, 0.05
#: Inputs precomputed by the Explore panel (lx, ly [mm], theta_deg [deg]).
EXPLORE_GRID = dict(lx=[0.0, 100.0, 200.0, 300.0, 400.0], ly=[0.0, 100.0, 200.0, 300.0, 400.0],
                    theta_deg=[-80.0, -40.0, 0.0, 40.0, 80.0])
EXPLORE_GRID_QUICK = dict(lx=[100.0, 200.0, 300.0], ly=[100.0, 200.0, 300.0], theta_deg=[-40.0, 0.0, 40.0])
#: One independent seed per experiment: position in ``SeedSequence(seed).generate_state(8)``. (The stream
#: ``exercise_3`` is no longer drawn from: exercise 3 uses the chapter's ``seed`` itself, as its solution does; it
#: stays in the list so that the other streams keep their seeds.)
STREAMS = ("table", "round_trip", "rules", "workspace", "hit_or_miss", "exercise_3", "error_law", "symmetry")
EPS = float(np.finfo(float).eps)


# ---- parameters ------------------------------------------------------------------------------------
def _check_geometry(name: str, value) -> None:
    """Check of the ``geometry`` parameter: the file must be a valid 3-PRP geometry (read, schema, dimensions).

    >>> _check_geometry("geometry", "prp3/paper.yaml")
    >>> _check_geometry("geometry", "redundant/default.yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    robolib.ParameterError: geometry = 'redundant/default.yaml' is not valid: it must be a 3-PRP geometry file like 'prp3/paper.yaml' (...
    """
    try:
        kin.load_geometry(value)
    except (ParameterError, ValueError, OSError) as exc:  # a ParameterFileError, a file that is not text
        raise ParameterError(f"{name} = {value!r} is not valid: it must be a 3-PRP geometry file like "
                             f"'prp3/paper.yaml' ({exc})") from None


#: The study's parameters (the notebook's ``parameters`` cell): default, meaning, unit, valid values.
PARAMETERS = {
    "geometry": Parameter("prp3/paper.yaml", "geometry file (lengths in mm, angles in degrees)", kind="file",
                          check=_check_geometry),
    "n_samples": Parameter(1_000_000, "inputs in the large round trip", kind="integer", low=MIN_SAMPLES),
    "n_workspace": Parameter(1_000_000, "inputs sampled for the workspace", kind="integer", low=MIN_SAMPLES),
    "seed": Parameter(2024, "seed of every random draw in this chapter", kind="integer", low=0),
    "quick": Parameter(False, f"True: small samples, for tests (both capped at {QUICK_CAP:,})", kind="boolean"),
}


def check_model(geom: kin.Geometry, geometry: str) -> None:
    """Model-dependent condition, checked before any sampling: the home input :data:`HOME` (exercises 1-2) is
    reachable in ``geom`` (its forward kinematics is computed).

    >>> check_model(kin.Geometry(), "prp3/paper.yaml")
    >>> check_model(kin.Geometry(l2=100.0), "short.yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    robolib.ParameterError: geometry = 'short.yaml': the forward kinematics of the home input lx = 200 mm, ly = 200 mm, theta = 0 rad is not defined (...
    """
    try:
        kin.forward(geom, *HOME)
    except (ParameterError, ValueError) as exc:
        raise ParameterError(f"geometry = {geometry!r}: the forward kinematics of the home input lx = {HOME[0]:g} mm, "
                             f"ly = {HOME[1]:g} mm, theta = {HOME[2]:g} rad is not defined ({exc}); exercises 1-2 "
                             "need it") from None


def sample_sizes(n_samples: int, n_workspace: int, quick: bool) -> dict:
    """The sample sizes of a run: the two parameters (capped with ``quick``) and the secondary samples.

    >>> sample_sizes(1_000_000, 1_000_000, True)
    {'n_samples': 20000, 'n_workspace': 20000, 'n_rules': 20000, 'n_hit_or_miss': 20000, 'n_symmetry': 20000}
    """
    if quick:
        n_samples, n_workspace = min(n_samples, QUICK_CAP), min(n_workspace, QUICK_CAP)
    return dict(n_samples=n_samples, n_workspace=n_workspace, n_rules=min(n_samples, N_RULES_MAX),
                n_hit_or_miss=min(n_workspace, N_HIT_OR_MISS_MAX), n_symmetry=min(n_workspace, N_SYMMETRY_MAX))


def stream_seeds(seed: int) -> dict:
    """One independent integer seed per experiment (:data:`STREAMS`), from ``seed``.

    >>> s = stream_seeds(2024)
    >>> list(s) == list(STREAMS), len(set(s.values()))
    (True, 8)
    """
    return dict(zip(STREAMS, (int(s) for s in np.random.SeedSequence(seed).generate_state(len(STREAMS)))))


def far_from_boundary(distance) -> np.ndarray:
    """Whether each row ``(slider 1 [mm], slider 2 [mm], crank [rad])`` of distances is far from every boundary.

    >>> far_from_boundary(np.array([[2.0, 5.0, 0.01], [2.0, 0.5, 0.01]])).tolist()
    [True, False]
    """
    d = np.asarray(distance)
    return (d[..., 0] >= FAR_LEN) & (d[..., 1] >= FAR_LEN) & (d[..., 2] >= FAR_ANG)


def far_text() -> str:
    """The distances counted as far from a mode boundary, as text (``1 mm for a slider, 10⁻³ rad for the crank``)."""
    return f"{FAR_LEN:g} mm for a slider and {power_text(FAR_ANG)} rad for the crank"


def count_phrase(n: int, total_words: str, noun: str = "row") -> str:
    """``"one of the ten rows is"``, ``"3 of the ten rows are"``, ``"none of the ten rows is"``: a count as the subject
    of a sentence, its verb agreeing with it.

    >>> count_phrase(1, "ten"), count_phrase(3, "ten"), count_phrase(0, "ten")
    ('one of the ten rows is', '3 of the ten rows are', 'none of the ten rows is')
    """
    nouns = noun.format(s="s") if "{s}" in noun else noun + "s"  # "voxel edge{s} from ...": the plural inside
    if n == 0:
        return f"none of the {total_words} {nouns} is"
    if n == 1:
        return f"one of the {total_words} {nouns} is"
    return f"{n} of the {total_words} {nouns} are"


def _mode_text(m) -> str:
    return str(tuple(int(s) for s in m))


def _listing(items: list[str]) -> str:
    """``"a, b and c"`` (``"none"`` for no item).

    >>> _listing(["a", "b", "c"]), _listing(["a"]), _listing([])
    ('a, b and c', 'a', 'none')
    """
    return " and ".join([", ".join(items[:-1]), items[-1]]) if len(items) > 1 else (items[0] if items else "none")


def table_label(name: str) -> str:
    """The number of table ``name`` of :data:`TABLES`: ``"3.2"`` in the lecture (chapter 3), ``"S1"`` on the evidence
    page.

    >>> [table_label(t) for t in TABLES]
    ['3.1', 'S1', '3.2', 'S3', 'S2']
    """
    if name in EVIDENCE_TABLES:
        return f"S{EVIDENCE_TABLES.index(name) + 1}"
    return f"3.{[t for t in TABLES if t not in EVIDENCE_TABLES].index(name) + 1}"


# ---- the paper's experiment: ten random inputs -------------------------------------------------------
@dataclass
class TenInputs:
    """Data of Tables 1 and S1: ``q`` ``(10, 3)`` inputs (mm, mm, rad), ``points`` ``(10, 3)`` their FK [mm],
    ``modes`` ``(10, 3)``, ``back`` ``(10, 3)`` the IK of ``points`` in each row's mode, ``z_up`` ``(10,)``."""

    q: np.ndarray
    points: np.ndarray
    modes: np.ndarray
    back: np.ndarray
    z_up: np.ndarray

    @property
    def slider_error(self) -> np.ndarray:
        """Largest slider error of each row [mm], shape ``(10,)``."""
        return np.abs(self.back[:, :2] - self.q[:, :2]).max(axis=1)

    @property
    def crank_error(self) -> np.ndarray:
        """Crank error of each row [rad], shape ``(10,)``."""
        return np.abs(self.back[:, 2] - self.q[:, 2])


def ten_inputs(geom: kin.Geometry, seed: int) -> TenInputs:
    """The first :data:`TABLE_ROWS` reachable inputs of :data:`TABLE_DRAWS` uniform draws, FK then IK."""
    lx, ly, th = sampling.sample_inputs(geom, TABLE_DRAWS, seed=seed)
    J = kin.forward(geom, lx, ly, th, errors="mask")
    keep = np.flatnonzero(np.isfinite(J).all(axis=1))[:TABLE_ROWS]
    if len(keep) < TABLE_ROWS:
        raise ParameterError(f"seed {seed}: only {len(keep)} of {TABLE_DRAWS} draws reachable, Table 1 needs {TABLE_ROWS}")
    q, J = np.stack([lx, ly, th], -1)[keep], J[keep]
    modes = kin.working_mode(geom, q[:, 0], q[:, 1], q[:, 2], points=J)
    back = np.array([np.array(kin.inverse(geom, J[i], mode=tuple(modes[i]), errors="mask"), dtype=float)
                     for i in range(len(J))])
    return TenInputs(q, J, modes, back, J[:, 2] >= 0)


def table_ten_inputs(t: TenInputs) -> str:
    """**Table 1** (Markdown): the ten inputs, their forward kinematics and working mode, rows with ``z >= 0`` flagged."""
    rows = [[str(i + 1), q[0], q[1], np.degrees(q[2]), *p, _mode_text(m), "⚑" if up else ""]
            for i, (q, p, m, up) in enumerate(zip(t.q, t.points, t.modes, t.z_up))]
    return (f"**Table {table_label('table1')}** — forward kinematics of ten random reachable inputs (mm, deg) "
            "and the working mode of each input. ⚑: the root kept (below the plane of the sphere centres) has "
            "z ≥ 0; its mirror root lies higher still, so the paper's \"z < 0\" rule would keep neither root.\n\n"
            + markdown_table(["#", "lx", "ly", "θ [deg]", "x", "y", "z", "mode", "z ≥ 0"], rows, fmt="{:.2f}"))


def table_ten_ik(t: TenInputs) -> str:
    """**Table S1** (Markdown): the inverse kinematics of Table 1's points in each row's working mode."""
    rows = [[str(i + 1), b[0], b[1], np.degrees(b[2]), _mode_text(m), f"{es:.1e}", f"{ec:.1e}"]
            for i, (b, m, es, ec) in enumerate(zip(t.back, t.modes, t.slider_error, t.crank_error))]
    return (f"**Table {table_label('table_e1')}** — inverse kinematics of the points of Table "
            f"{table_label('table1')}, in each input's working mode (mm, deg)\n\n"
            + markdown_table(["#", "lx", "ly", "θ [deg]", "mode", "max slider error [mm]", "crank error [rad]"],
                             rows, fmt="{:.4f}"))


# ---- the large round trip -----------------------------------------------------------------------------
def root_heights(geom: kin.Geometry, rt: sampling.RoundTrip) -> dict:
    """Counts of the heights of both FK roots over a round trip's points, for the paper's "z < 0" rule.

    ``n_up``: points (the kept root) at ``z >= 0``; ``n_up_mirror_up``: of those, how many
    have the mirror root (:func:`~robolib.prp3.mirror_root`) at ``z >= 0`` too (the rule keeps
    neither root); ``n_up_mirror_down``: how many have it at ``z < 0`` (the rule takes the
    wrong root); ``n_both_down``: points with both roots at ``z < 0`` (the rule does not decide).
    """
    mirror = kin.mirror_root(geom, rt.q[:, 0], rt.q[:, 1], rt.q[:, 2], points=rt.points)
    up, m_up = rt.points[:, 2] >= 0, mirror[:, 2] >= 0
    return dict(n=len(rt.points), n_up=int(up.sum()), n_up_mirror_up=int((up & m_up).sum()),
                n_up_mirror_down=int((up & ~m_up).sum()), n_both_down=int((~up & ~m_up).sum()))


def fit_error_law(rt: sampling.RoundTrip, seed: int) -> sampling.ErrorLaw:
    """The error law of the slider columns of ``rt`` with the chapter's bins and draws."""
    try:
        return sampling.error_law(rt.distance[:, :2].ravel(), rt.error[:, :2].ravel(), draws=LAW_DRAWS,
                                  bins=LAW_BINS, lo=LAW_LO, seed=seed)
    except ParameterError as exc:
        raise ParameterError(f"n_samples = {len(rt.q) + rt.n_unreachable} is too small for the error-law fit: {exc}") from None


def table_modes(rt: sampling.RoundTrip) -> tuple[str, int]:
    """**Table 2** (Markdown): share of each working mode and its largest error far from a boundary; the mode count."""
    far = far_from_boundary(rt.distance)
    modes, counts = np.unique(rt.mode, axis=0, return_counts=True)
    rows = []
    for m, c in zip(modes, counts):
        f = np.all(rt.mode == m, axis=1) & far
        rows.append([_mode_text(m), f"{c / len(rt.q):.1%}", f"{rt.error[f, :2].max():.1e}" if f.any() else "-",
                     f"{rt.error[f, 2].max():.1e}" if f.any() else "-"])
    text = (f"**Table {table_label('table2')}** — share of the reachable inputs of the round-trip sample "
            f"({len(rt.q):,}) in each working mode, and the largest round-trip error of its inputs far from every mode "
            f"boundary (at least {far_text()})\n\n"
            + markdown_table(["mode (σ1, σ2, σ3)", "share", "max error [mm]", "max error [rad]"], rows))
    return text, len(modes)


def paper_rules(geom: kin.Geometry, n: int, seed: int) -> tuple[kin.RuleOutcome, float]:
    """Hit rates of the paper's IK rules on ``n`` uniform inputs, and the share ``inverse(mode="paper")`` recovers."""
    lx, ly, th = sampling.sample_inputs(geom, n, seed=seed)
    rules = kin.paper_rule_outcome(geom, lx, ly, th)
    J = kin.forward(geom, lx, ly, th, errors="mask")
    ok = np.isfinite(J).all(-1)
    q_paper = np.stack(kin.inverse(geom, J[ok], mode=kin.PAPER_RULES, errors="mask", limits=False), -1)
    tol = ROOT_MATCH_TOL * np.array([geom.l2, geom.l2, 1.0])
    with np.errstate(invalid="ignore"):
        hit = np.isfinite(q_paper).all(-1) & np.all(np.abs(q_paper - np.stack([lx, ly, th], -1)[ok]) < tol, axis=-1)
    return rules, float(hit.mean())


# ---- workspace ----------------------------------------------------------------------------------------
def symmetry_check(geom: kin.Geometry, n: int, seed: int) -> tuple[float, bool]:
    """Largest ``|mirror(FK(lx, ly, θ)) - FK(ly, lx, θ)|`` [mm] over ``n`` inputs, and whether reachability agrees."""
    lx, ly, th = sampling.sample_inputs(geom, n, seed=seed)
    a = kin.forward(geom, lx, ly, th, errors="mask")
    b = kin.forward(geom, ly, lx, th, errors="mask")
    ok = np.isfinite(a).all(-1)
    return float(np.max(np.abs(sampling.mirror_y(a[ok]) - b[ok]))), bool(np.array_equal(ok, np.isfinite(b).all(-1)))


def workspace_from_samples(wsamp: sampling.WorkspaceSamples, voxel: float = WORKSPACE_VOXEL) -> dict:
    """``{mode: Workspace}`` as :func:`robolib.prp3.workspace` computes it (key ``None``: all modes), from the
    same draw kept sample by sample (:func:`robolib.prp3.workspace_samples`), so the draw is made once.

    >>> geom = kin.Geometry()
    >>> a, b = sampling.workspace(geom, n=5_000, seed=1), workspace_from_samples(sampling.workspace_samples(geom, n=5_000, seed=1))
    >>> list(a) == list(b) and all(np.array_equal(a[m].points, b[m].points) for m in a)
    True
    >>> all(np.isclose(a[m].volume_jacobian, b[m].volume_jacobian, rtol=1e-12) and a[m].volume_voxels == b[m].volume_voxels
    ...     and a[m].fraction == b[m].fraction for m in a)
    True
    """
    out = {}
    for m in [None, *kin.ALL_MODES]:
        sel = np.ones(len(wsamp.det), bool) if m is None else (wsamp.mode == np.array(m)).all(axis=-1)
        if not sel.any():
            continue
        pts = wsamp.points[sel]
        g = np.zeros(wsamp.n)
        g[: len(sel)] = wsamp.det * sel
        out[m] = sampling.Workspace(mode=m, points=pts, extents=np.stack([pts.min(0), pts.max(0)], -1),
                                    volume_voxels=sampling.voxel_volume(pts, voxel), voxel=voxel,
                                    volume_jacobian=wsamp.box * float(g.mean()),
                                    volume_jacobian_se=wsamp.box * float(g.std(ddof=1) / np.sqrt(wsamp.n)),
                                    fraction=float(sel.sum() / wsamp.n))
    return out


def tail_index(weights, k: int = TAIL_K) -> float:
    """Hill estimate of the tail index of the positive ``weights`` from their ``k`` largest values.

    ``P(w > y) ~ y**-alpha`` for large ``y``; the estimate is ``1 / mean(log(w_(i) / w_(k+1)))`` over the ``k``
    largest values ``w_(1) >= ... >= w_(k)``. A Pareto sample of index 2 gives about 2:

    >>> w = np.random.default_rng(0).pareto(2.0, 200_000) + 1.0
    >>> 1.9 < tail_index(w, 2_000) < 2.1
    True
    """
    x = np.sort(np.asarray(weights)[np.asarray(weights) > 0])[::-1]
    if len(x) <= k:
        raise ParameterError(f"the tail index needs more than {k} positive weights, got {len(x)}")
    return float(1.0 / np.mean(np.log(x[:k] / x[k])))


def voxel_counts(points: np.ndarray, voxels=VOXELS, fractions=VOXEL_FRACTIONS) -> dict:
    """``{edge: [voxel volume of the first len/k points for k in fractions]}`` [mm³].

    >>> voxel_counts(np.array([[0.5, 0.5, 0.5], [1.5, 0.5, 0.5]]), voxels=(1.0,), fractions=(2, 1))
    {1.0: [1.0, 2.0]}
    """
    return {v: [sampling.voxel_volume(points[: len(points) // k], v) for k in fractions] for v in voxels}


def voxel_verdicts(vox: dict, v_ref: float, se_ref: float) -> dict:
    """``{edge: (overstates, still_grows)}`` of the voxel counts of :func:`voxel_counts` [mm³].

    *overstates*: the count with all samples exceeds ``v_ref + N_SIGMA * se_ref`` (the hit-or-miss volume);
    *still grows*: it grows by more than :data:`FINE_GROWTH_MIN` from half to all samples.

    >>> voxel_verdicts({40.0: [50.0, 52.0], 5.0: [8.0, 12.0]}, v_ref=22.0, se_ref=0.1)
    {40.0: (True, False), 5.0: (False, True)}
    """
    return {v: (bool(vol[-1] > v_ref + N_SIGMA * se_ref), bool(vol[-1] / vol[-2] - 1 > FINE_GROWTH_MIN))
            for v, vol in vox.items()}


def table_workspace(ws: dict, n_workspace: int) -> str:
    """**Table S3** (Markdown): share, extents and Jacobian volume of the workspace of each mode and of all modes.

    The voxel counts of the same sample are Table S2: they do not give the volume."""
    rows = []
    for m, w in ws.items():
        rows.append(["all modes" if m is None else str(m), f"{w.fraction:.1%}", *[f"{a:.0f} … {b:.0f}" for a, b in w.extents],
                     f"{w.volume_jacobian / 1e6:.1f}"])
    return (f"**Table {table_label('table3')}** — workspace of {n_workspace:,} uniform inputs, a sample of its "
            f"own (mm; volumes in 10⁶ mm³ = dm³). *Share*: of all {n_workspace:,} inputs of the actuator box, "
            f"unreachable ones included (the chapter's Table {table_label('table2')} counts reachable inputs only). "
            "*Volume*: the Jacobian integral of |det ∂J/∂q| over the inputs of the mode (for *all modes* it counts "
            "overlapping modes once each, so it is an upper bound of the union's volume), without a standard error "
            "(its integrand is heavy-tailed: see the text and the evidence page).\n\n"
            + markdown_table(["mode", "share", "x", "y", "z", "volume (Jacobian)"], rows))


def table_voxels(vox: dict, n_points: int, v_ref: float) -> str:
    """**Table S2** (Markdown): default-mode voxel volume against the voxel edge and the share of the samples."""
    rows = [[f"{v:g}", f"{n_points / (v_ref / v ** 3):.2g}", *[f"{x / 1e6:.2f}" for x in vol], f"{vol[-1] / vol[-2] - 1:+.0%}"]
            for v, vol in vox.items()]
    labels = [f"1/{k}" if k > 1 else "all" for k in VOXEL_FRACTIONS]
    labels[0] += " of the samples"
    return (f"**Table {table_label('table_e2')}** — default-mode volume by voxel count [dm³] against the voxel edge and the number of "
            f"samples used ({n_points:,} samples of the default mode = 1; the hit-or-miss volume is "
            f"{v_ref / 1e6:.2f} dm³). *Samples per voxel*: samples divided by the number of voxels the hit-or-miss "
            "volume fills.\n\n"
            + markdown_table(["voxel edge [mm]", "samples per voxel", *labels, f"growth {labels[-2]} → {labels[-1]}"], rows))


def register_condition_singular(reg, maps) -> None:
    """Claim ``prp3_condition_singular``: on each conditioning map, every grid point whose condition number is in the
    top :data:`CONDITION_TOP` lies at a singularity (forward or inverse measure below :data:`SINGULAR_LEVEL`), while
    fewer than half of all reachable grid points do (so the criterion is not met by any point)."""
    at, base = [], []
    for _, m in maps:
        c = m.condition
        ok = np.isfinite(c)
        top = ok & (c >= np.quantile(c[ok], 1.0 - CONDITION_TOP))
        near = (m.inverse < SINGULAR_LEVEL) | (m.forward < SINGULAR_LEVEL)
        at.append(float(near[top].mean()))
        base.append(float(near[ok].mean()))
    thetas = ", ".join(f"{t:g}" for t, _ in maps)
    reg.claim("prp3_condition_singular", "the worst-conditioned inputs lie at the Jacobian's singularities, the mode "
              "and reach boundaries", value={"at": at, "base": base},
              criterion=f"on each map (θ = {thetas}°): every grid point in the top {CONDITION_TOP:.0%} of the condition "
                        f"number has a forward or inverse singularity measure below {SINGULAR_LEVEL:g}, and fewer than "
                        "half of all reachable grid points do",
              holds=min(at) == 1.0 and max(base) < 0.5,
              text=f"every grid point in the top {CONDITION_TOP:.0%} of the condition number, on each of the three maps, "
                   f"has a singularity measure below {SINGULAR_LEVEL:g}, against {min(base):.0%}–{max(base):.0%} of all "
                   "reachable grid points")


def condition_maps(geom: kin.Geometry, n_grid: int):
    """Singularity measures over an ``n_grid`` × ``n_grid`` grid of the slider inputs at each of :data:`CONDITION_THETAS_DEG`.

    Returns ``(LX, LY, [(theta_deg, Singularity), ...])``, ``LX``, ``LY`` of shape ``(n_grid, n_grid)`` [mm].
    """
    grid = np.linspace(*geom.lx_range, n_grid)
    LX, LY = np.meshgrid(grid, grid, indexing="xy")
    return LX, LY, [(t, kin.singularity_measures(geom, LX, LY, np.radians(t))) for t in CONDITION_THETAS_DEG]


# ---- exercises ----------------------------------------------------------------------------------------
def exercise_1(geom: kin.Geometry) -> dict:
    """Every IK solution of the home pose: counts of real ones and of those inside the actuator ranges, a report."""
    sol = kin.inverse_all(geom, kin.forward(geom, *HOME))
    lines = [f"real solutions: {int(sol.real.sum())}, inside the actuator ranges: {int(sol.within_limits.sum())}"]
    for m, q, ok in zip(sol.modes, sol.q, sol.within_limits):
        lines.append(f"{_mode_text(m)} {np.round([q[0], q[1], np.degrees(q[2])], 3)} {'inside' if ok else 'outside'}")
    inside = [_mode_text(m) for m, ok in zip(sol.modes, sol.within_limits) if ok]
    outside = [_mode_text(m) for m, ok, real in zip(sol.modes, sol.within_limits, sol.real) if real and not ok]
    return dict(real=int(sol.real.sum()), inside=int(sol.within_limits.sum()), report="\n".join(lines),
                modes_inside=inside, modes_outside=outside)


def exercise_2(geom: kin.Geometry) -> dict:
    """The ``lx`` [mm] where the home configuration (``ly``, ``θ`` of :data:`HOME`) meets chain 1's mode boundary."""

    def signed_distance(lx):
        """lx - b_1 = sigma_1 * sqrt(disc_1): zero on chain 1's mode boundary [mm]."""
        J = kin.forward(geom, lx, HOME[1], HOME[2])
        return float(lx - (J + geom.r * kin.U1) @ kin.U1)

    grid = np.linspace(*geom.lx_range, 401)
    vals = np.array([signed_distance(v) for v in grid])
    k = np.flatnonzero(np.diff(np.sign(vals)))[0]
    lx = brentq(signed_distance, grid[k], grid[k + 1], xtol=1e-12)
    return dict(lx=float(lx), report=f"chain-1 mode boundary at lx = {lx:.6f} mm (mode of slider 1 flips from "
                                      f"{int(np.sign(vals[k]))} to {int(np.sign(vals[k + 1]))})")


def exercise_3(geom: kin.Geometry, seed: int) -> dict:
    """The two volume routes with :data:`EX3_N` samples each, drawn from ``seed`` (the chapter's seed, as the
    exercise's solution draws them): volumes, the standard error each route computes from its sample [mm³], and the
    report the solution prints (the same lines).

    >>> r = exercise_3(kin.Geometry(), 2024)
    >>> r["report"].splitlines()[0].startswith("hit-or-miss: ")
    True
    """
    v_hm, se_hm = sampling.volume_hit_or_miss(geom, kin.DEFAULT_MODE, n=EX3_N, seed=seed)
    w = sampling.workspace(geom, n=EX3_N, seed=seed)[kin.DEFAULT_MODE]
    v_jac, se_jac = w.volume_jacobian, w.volume_jacobian_se
    report = (f"hit-or-miss: {v_hm / 1e6:.2f} ± {se_hm / 1e6:.2f} dm³ (relative {se_hm / v_hm:.1%})\n"
              f"Jacobian integral: {v_jac / 1e6:.2f} ± {se_jac / 1e6:.2f} dm³ (relative {se_jac / v_jac:.1%})\n"
              f"difference: {abs(v_jac - v_hm) / se_hm:.1f} hit-or-miss standard errors")
    return dict(v_hm=float(v_hm), se_hm=float(se_hm), v_jac=float(v_jac), se_jac=float(se_jac), report=report)


# ---- the study ------------------------------------------------------------------------------------------
def parameter_rows(sizes: dict, quick: bool, explore_grid: dict) -> list[tuple[str, str, str]]:
    """The ``extra`` rows of the chapter's full parameter table: every setting the run used besides its parameters."""
    return [
        ("n_samples, n_workspace (this run)", f"{sizes['n_samples']:,}, {sizes['n_workspace']:,}",
         f"after the quick cap of {QUICK_CAP:,}" if quick else "as given"),
        ("error-law fit", f"{LAW_BINS} log bins from {LAW_LO:g} mm, {LAW_DRAWS} samples drawn per bin",
         "largest error per bin against distance (see the error law)"),
        ("voxel edges", ", ".join(f"{v:g}" for v in VOXELS), "mm"),
        ("N_RULES", sizes["n_rules"], "inputs for the paper's-rules statistics"),
        ("N_HIT_OR_MISS", sizes["n_hit_or_miss"], "task-space points of the hit-or-miss volume"),
        ("Explore grid", "; ".join(f"{k} ∈ {v}" for k, v in explore_grid.items()), "precomputed figures"),
        ("seeds", f"SeedSequence(seed).generate_state({len(STREAMS)})", "one independent seed per experiment"),
    ]


#: Rows of the chapter's short table of key parameters (names of rows of the full table).
KEY_ROWS = ("l0", "l1", "l2", "r", "h", "lx_range", "ly_range", "theta_range")


def geometry_rows(geometry: str) -> list[tuple[str, str, str]]:
    """Every field of the geometry file as ``(name, value, unit, meaning)`` rows: lengths in mm, angles in deg.

    >>> [r for r in geometry_rows("prp3/paper.yaml") if r[0] == "l2"]
    [('l2', '500', 'mm, rod length (all three chains)')]
    """

    unit = {"l0": "mm", "l1": "mm", "l2": "mm", "r": "mm", "h": "mm", "lx_range": "mm", "ly_range": "mm",
            "theta_range": "deg"}
    return [(name, value, f"{unit[name]}, {note}" if name in unit else note)
            for name, value, note in yaml_parameter_rows(geometry)]


def criteria_rows() -> list[tuple[str, str, str]]:
    """The constants of the claims' criteria, fixed before the runs: ``(name, value, meaning)`` rows."""
    return [
        ("FAR_LEN, FAR_ANG", f"{FAR_LEN:g} mm, {FAR_ANG:g} rad", "prp3_rt_far: distance from a mode boundary counted as far"),
        ("TOL_LEN, TOL_ANG", f"{TOL_LEN:g} mm, {TOL_ANG:g} rad", "prp3_table_error, prp3_rt_far: round-trip targets"),
        ("ALL_SLIDER_TOL", f"{ALL_SLIDER_TOL:g} mm", "prp3_rt_all: slider error over the whole sample"),
        ("ALL_ANGLE_TOL", f"{ALL_ANGLE_TOL:g} rad", "prp3_rt_all: crank error over the whole sample"),
        ("PREDICTED_EXPONENT ± EXPONENT_TOL", f"{PREDICTED_EXPONENT:g} ± {EXPONENT_TOL:g}", "prp3_error_exponent"),
        ("RAW_EXPONENT_MAX", f"{RAW_EXPONENT_MAX:g}", "prp3_error_raw_exponent"),
        ("ROUNDINGS_MIN, ROUNDINGS_MAX", f"{ROUNDINGS_MIN:g}, {ROUNDINGS_MAX:g}",
         "prp3_error_prefactor: the rounding of D implied by the prefactor, in eps·l2²"),
        ("RULES_ALL_HIT_MAX", f"{RULES_ALL_HIT_MAX:g}", "prp3_rules_fail: share of inputs all three rules get right"),
        ("root match tolerance", f"{ROOT_MATCH_TOL:g}·l2 for a slider, {ROOT_MATCH_TOL:g} rad for the crank",
         "prp3_rules_fail: a rule 'picks the true root' within this"),
        ("N_SIGMA", f"{N_SIGMA:g}", "prp3_volume, prp3_voxel_coarse, prp3_voxel_none: standard errors (of the hit-or-miss "
         "volume) of agreement"),
        ("TAIL_K; TAIL_INDEX_MIN, TAIL_INDEX_MAX", f"{TAIL_K}; {TAIL_INDEX_MIN:g}, {TAIL_INDEX_MAX:g}",
         "prp3_volume_tail: largest values of the Hill estimate, bounds of the tail index"),
        ("SYMMETRY_TOL", f"{SYMMETRY_TOL:g} mm", "prp3_symmetry"),
        ("CONDITION_TOP, SINGULAR_LEVEL", f"{CONDITION_TOP:g}, {SINGULAR_LEVEL:g}",
         "prp3_condition_singular: top share of the condition number, singularity measure counted as at a singularity"),
        ("FINE_SPV_MAX, FINE_GROWTH_MIN", f"{FINE_SPV_MAX:g}, {FINE_GROWTH_MIN:.0%}",
         "prp3_voxel_fine, prp3_voxel_none: samples per voxel, growth from half to all samples"),
    ]


@declare_parameters(PARAMETERS, "prp3_roundtrip")
def run(geometry="prp3/paper.yaml", n_samples=1_000_000, n_workspace=1_000_000, seed=2024, quick=False):
    """The 3-PRP FK/IK round trip chapter: every experiment and claim, as a :class:`~robolib.book.result.StudyResult`.

    ``geometry``: geometry file (``data/`` path; lengths in mm, angles in degrees);
    ``n_samples``: inputs of the large round trip; ``n_workspace``: inputs sampled
    for the workspace; ``seed``: seed of every random draw (one stream per
    experiment, :func:`stream_seeds`); ``quick``: cap both samples at
    :data:`QUICK_CAP` (tests). Tables of :data:`TABLES` (those of :data:`EVIDENCE_TABLES` for the evidence
    page), ``key_parameters`` (the lecture's short table), ``parameters`` (every parameter) and ``criteria``;
    figures ``mechanism``, ``errors``, ``workspace``, ``condition``; ``data`` holds
    the geometry, the round trip, the error law, the workspace and the exercises'
    results; ``values`` the numbers the prose glues that are not claims. The parameters are checked
    against :data:`PARAMETERS` before any work (a :class:`~robolib.ParameterError` names the bad one).
    """
    geom = kin.load_geometry(geometry)
    check_model(geom, geometry)
    params = dict(geometry=geometry, n_samples=n_samples, n_workspace=n_workspace, seed=seed, quick=quick)
    sizes = sample_sizes(n_samples, n_workspace, quick)
    seeds = stream_seeds(seed)
    reg = ClaimsRegister("prp3_roundtrip", source="003", glue=False, quick=bool(quick))
    stage = Stages("prp3_roundtrip")
    stage("the paper's ten inputs")
    tables, values, data = {}, {}, {"geometry": geom, "sizes": sizes, "seeds": seeds}

    # -- the paper's experiment: ten random inputs (Tables 1-2)
    ten = ten_inputs(geom, seeds["table"])
    tables["table1"], tables["table_e1"] = table_ten_inputs(ten), table_ten_ik(ten)
    e_len, e_ang = float(ten.slider_error.max()), float(ten.crank_error.max())
    reg.claim("prp3_table_error", "the ten-row FK→IK round trip (Table 3.1), each row solved in its own working mode, "
              "recovers every input",
              value=[e_len, e_ang], criterion=f"max slider error < {TOL_LEN:g} mm and max crank error < {TOL_ANG:g} rad",
              holds=e_len < TOL_LEN and e_ang < TOL_ANG, text=f"{sci_text(e_len)} mm and {sci_text(e_ang)} rad", answers="003.c1")
    in_default = np.all(ten.modes == kin.DEFAULT_MODE, axis=1)
    n_default10 = int(in_default.sum())
    back_default = np.array([np.array(kin.inverse(geom, p, mode=kin.DEFAULT_MODE, errors="mask"), dtype=float)
                             for p in ten.points])
    with np.errstate(invalid="ignore"):
        recovered = (np.abs(back_default[:, :2] - ten.q[:, :2]).max(axis=1) < TOL_LEN) & \
                    (np.abs(back_default[:, 2] - ten.q[:, 2]) < TOL_ANG)
    reg.claim("prp3_n_default10", "not every input of Table 3.1 is in the default working mode, and solved in the default "
              "mode only the default-mode rows come back: the inverse kinematics needs each input's own mode",
              value=n_default10, criterion=f"fewer than {TABLE_ROWS} of the {TABLE_ROWS} rows in mode (-1, -1, +1), and "
              f"the IK in that mode recovers a row (to {TOL_LEN:g} mm, {TOL_ANG:g} rad) exactly when it is in that mode",
              holds=n_default10 < TABLE_ROWS and bool(np.array_equal(recovered, in_default)),
              text=f"{n_default10} of {TABLE_ROWS}")
    values["prp3_n_flag10"] = f"{int(ten.z_up.sum())}"
    values["prp3_flag10_text"] = count_phrase(int(ten.z_up.sum()), "ten")
    data["ten"] = ten

    # -- the large round trip
    stage(f"round trip of {sizes['n_samples']} inputs and its error law")
    rt = sampling.round_trip(geom, sizes["n_samples"], seed=seeds["round_trip"])
    far, default = far_from_boundary(rt.distance), np.all(rt.mode == kin.DEFAULT_MODE, axis=1)
    sel = far & default
    max_len, max_ang = float(rt.error[sel, :2].max()), float(rt.error[sel, 2].max())
    max_len_all, max_ang_all = float(rt.error[:, :2].max()), float(rt.error[:, 2].max())
    values.update(prp3_rt_n=f"{len(rt.q):,}", prp3_rt_unreachable=f"{rt.n_unreachable:,}",
                  prp3_rt_far_share=f"{sel.sum() / default.sum():.1%}", prp3_far=far_text(),
                  prp3_all_tol=power_text(ALL_SLIDER_TOL))
    reg.claim("prp3_rt_far", "far from every mode boundary the default-mode round trip meets the targets",
              value=[max_len, max_ang],
              criterion=f"max error < {TOL_LEN:g} mm and < {TOL_ANG:g} rad at ≥ {FAR_LEN:g} mm / {FAR_ANG:g} rad from a boundary",
              holds=max_len < TOL_LEN and max_ang < TOL_ANG, text=f"{sci_text(max_len)} mm and {sci_text(max_ang)} rad",
              answers="003.c1")
    reg.claim("prp3_rt_all", f"over the whole sample, all modes, even next to a boundary, the slider error stays below "
              f"{ALL_SLIDER_TOL:g} mm and the crank error below {ALL_ANGLE_TOL:g} rad",
              value=[max_len_all, max_ang_all],
              criterion=f"max slider error < {ALL_SLIDER_TOL:g} mm and max crank error < {ALL_ANGLE_TOL:g} rad",
              holds=max_len_all < ALL_SLIDER_TOL and max_ang_all < ALL_ANGLE_TOL, text=f"{sci_text(max_len_all)} mm and {sci_text(max_ang_all)} rad",
              answers="003.c1")
    z = root_heights(geom, rt)
    reg.claim("prp3_z_up", "some reachable inputs have their forward-kinematics point at z ≥ 0; there the mirror root "
              "lies at z ≥ 0 too, so the paper's z < 0 rule keeps neither root",
              value=[z["n_up"], z["n"], z["n_up_mirror_up"]],
              criterion="at least one point with z ≥ 0 in the large sample, and at every one of them the mirror root "
                        "(reflected through the plane of the sphere centres) also at z ≥ 0 (counted)",
              holds=z["n_up"] > 0 and z["n_up_mirror_up"] == z["n_up"],
              text=f"{z['n_up']:,} of the {z['n']:,} reachable inputs ({z['n_up'] / z['n']:.1%})", answers="003.c2")
    reg.claim("prp3_z_ambiguous", "for some reachable inputs both roots lie at z < 0, where the paper's z < 0 rule does not decide",
              value=[z["n_both_down"], z["n"]], criterion="at least one point of the large sample with both roots at z < 0 (counted)",
              holds=z["n_both_down"] > 0,
              text=f"{z['n_both_down']:,} of the {z['n']:,} reachable inputs ({z['n_both_down'] / z['n']:.1%})",
              answers="003.c2")
    report = [f"reachable inputs: {len(rt.q)}, unreachable: {rt.n_unreachable}",
              f"default mode, >= {FAR_LEN:g} mm / {FAR_ANG:g} rad from a mode boundary: {sel.sum()} inputs, "
              f"max error {max_len:.2e} mm, {max_ang:.2e} rad",
              f"all inputs, all modes: max error {max_len_all:.2e} mm, {max_ang_all:.2e} rad"]
    data.update(round_trip=rt, far=far, root_heights=z, reports={"round_trip": "\n".join(report)})

    # -- the error law near a mode boundary
    law = fit_error_law(rt, seeds["error_law"])
    c_fit = 10 ** law.log10_prefactor
    pref = c_fit / (EPS * geom.l2 ** 2)
    report = [f"fitted exponent {law.exponent:.3f} over distances {law.fit_range[0]:.2g} ... {law.fit_range[1]:.3g} mm "
               f"({len(law.centres)} bins); prefactor {c_fit:.2e} mm² = {pref:.1f} eps·l2²",
               f"the same fit to the plain largest error per bin (count-biased): {law.raw_exponent:.3f}"]
    reg.claim("prp3_error_exponent", "the largest slider round-trip error grows like distance⁻¹ from the mode boundary (δD / (2√D), √D = distance)",
              value=law.exponent, criterion=f"fitted exponent within {PREDICTED_EXPONENT:g} ± {EXPONENT_TOL:g}",
              holds=abs(law.exponent - PREDICTED_EXPONENT) <= EXPONENT_TOL,
              text=f"{law.exponent:.2f}".replace("-", "−") + f", fitted over distances from {law.fit_range[0]:.2g} "
                   f"to {law.fit_range[1]:.3g} mm in {len(law.centres)} bins")
    reg.claim("prp3_error_raw_exponent", "the plain per-bin maxima, biased by the bins' counts, fall more slowly than the "
              "equal-count maxima, yet still grow steeply toward the boundary, far from the flat exponent 0 of an error "
              "that does not grow there",
              value=law.raw_exponent, criterion=f"fitted exponent < exponent of the plain per-bin maxima < {RAW_EXPONENT_MAX:g}",
              holds=law.exponent < law.raw_exponent < RAW_EXPONENT_MAX, text=f"{law.raw_exponent:.2f}".replace("-", "−"))
    reg.claim("prp3_error_prefactor", "the error law's prefactor C is that of a few roundings of D: the rounding "
              "δD = 2C it implies is a few times eps·l2²",
              value=pref, criterion=f"{ROUNDINGS_MIN:g} eps·l2² ≤ 2C ≤ {ROUNDINGS_MAX:g} eps·l2²",
              holds=ROUNDINGS_MIN <= 2 * pref <= ROUNDINGS_MAX,
              text=f"C = {pref:.1f} ε·l₂², so δD ≈ {2 * pref:.1f} ε·l₂²")
    data.update(error_law=law)
    data["reports"]["error_law"] = "\n".join(report)

    # -- working modes and the paper's rules (Table 3)
    tables["table2"], n_modes = table_modes(rt)
    rules, paper_hit = paper_rules(geom, sizes["n_rules"], seeds["rules"])
    values.update(prp3_rule_slider=f"{rules.slider_hit:.1%}",
                  prp3_rule_crank=f"{rules.crank_hit:.1%}", prp3_paper_hit=f"{paper_hit:.1%}")
    reg.claim("prp3_n_modes", "a uniform sample of the actuator box meets all eight working modes",
              value=n_modes, criterion="8 distinct sign triples in the sample", holds=n_modes == 8,
              text=f"all {n_modes}" if n_modes == 8 else f"only {n_modes} of the 8", answers="003.c3")
    reg.claim("prp3_rules_ambiguous", "the slider rule (take the positive displacement) does not single out one root for this "
              "geometry: for some inputs a slider has two positive roots, or none",
              value=rules.slider_ambiguous, criterion="share of the rules sample with an ambiguous slider > 0",
              holds=rules.slider_ambiguous > 0, text=f"{rules.slider_ambiguous:.1%}", answers="003.c3")
    reg.claim("prp3_rules_fail", "the paper's rules (positive displacement, smaller angle) do not recover the input in every case",
              value=rules.all_hit, criterion=f"all three rules right on fewer than {RULES_ALL_HIT_MAX:.0%} of the inputs",
              holds=rules.all_hit < RULES_ALL_HIT_MAX, text=f"{rules.all_hit:.1%}", answers="003.c3")
    data.update(rules=rules, paper_hit=paper_hit)

    # -- workspace (Tables 4-5)
    stage(f"workspace of {sizes['n_workspace']} inputs, hit-or-miss volume, voxels")
    wsamp = sampling.workspace_samples(geom, n=sizes["n_workspace"], seed=seeds["workspace"])  # kept sample by sample
    ws = workspace_from_samples(wsamp, WORKSPACE_VOXEL)  # as robolib.prp3.workspace computes it, from the same draw
    if kin.DEFAULT_MODE not in ws:
        raise ParameterError(f"n_workspace = {n_workspace}: no sample in the default mode {kin.DEFAULT_MODE}")
    vol_hm, se_hm = sampling.volume_hit_or_miss(geom, kin.DEFAULT_MODE, n=sizes["n_hit_or_miss"], seed=seeds["hit_or_miss"])
    w0, wall = ws[kin.DEFAULT_MODE], ws[None]
    hm_tol = inspect.signature(sampling.in_workspace).parameters["tol"].default
    values.update(prp3_hm_n=f"{sizes['n_hit_or_miss']:,}", prp3_hm_tol=power_text(hm_tol),
                  prp3_hm_pad=f"{sampling.HIT_OR_MISS_PAD:.0%}",
                  prp3_hm_bound_n=f"{sampling.HIT_OR_MISS_BOUND_SAMPLES:,}")
    values["prp3_default_share"] = f"{w0.fraction:.0%}"
    v_jac = w0.volume_jacobian
    reg.claim("prp3_volume", "two independent estimates of the default-mode volume agree: the Jacobian integral lies "
              "within a few standard errors of the hit-or-miss volume",
              value=[v_jac / 1e6, vol_hm / 1e6, se_hm / 1e6],
              criterion=f"|Jacobian − hit-or-miss| < {N_SIGMA:g} standard errors of hit-or-miss",
              holds=abs(v_jac - vol_hm) < N_SIGMA * se_hm,
              text=f"{vol_hm / 1e6:.2f} ± {se_hm / 1e6:.2f} dm³ by hit-or-miss, {v_jac / 1e6:.3g} dm³ by the Jacobian "
                   "integral (a heavy-tailed estimate without a reliable error bar)")
    w_det = wsamp.det * (wsamp.mode == np.array(kin.DEFAULT_MODE)).all(axis=-1)
    alpha = tail_index(w_det, TAIL_K)
    top = float(w_det.max() / w_det.sum())
    reg.claim("prp3_volume_tail", "the Jacobian integrand |det ∂J/∂q| is heavy-tailed near the reach boundary: its "
              "tail index α (P(value > y) falls like y^-α) lies between 1 and 4: the volume (its mean) exists, but the "
              "fourth moment does not, so a standard error computed from the sample is not a reliable uncertainty",
              value=[alpha, top],
              criterion=f"{TAIL_INDEX_MIN:g} < Hill tail index from the {TAIL_K} largest default-mode values < "
                        f"{TAIL_INDEX_MAX:g}",
              holds=TAIL_INDEX_MIN < alpha < TAIL_INDEX_MAX,
              text=f"a tail index of {alpha:.2f}")
    values["prp3_tail_predicted"] = f"{TAIL_INDEX_PREDICTED:g}"
    data["reports"]["volume"] = "\n".join([
        f"hit-or-miss: {sizes['n_hit_or_miss']} task-space points, {vol_hm / 1e6:.3f} ± {se_hm / 1e6:.3f} dm³",
        f"Jacobian integral: {sizes['n_workspace']} inputs, {v_jac / 1e6:.3f} dm³ (the naive standard error "
        f"{w0.volume_jacobian_se / 1e6:.3f} dm³ is not its uncertainty)",
        f"tail index of |det dJ/dq| (Hill, {TAIL_K} largest of {int((w_det > 0).sum())} default-mode values): {alpha:.2f}; "
        f"predicted {TAIL_INDEX_PREDICTED:g}",
        f"the largest single value carries {top:.2%} of the integral"])
    sym, same_reach = symmetry_check(geom, sizes["n_symmetry"], seeds["symmetry"])
    ext = wall.extents
    reg.claim("prp3_symmetry", "the workspace is mirror-symmetric about the XZ plane (y → −y swaps the two sliders)",
              value=[sym, float(ext[1, 0]), float(ext[1, 1])],
              criterion=f"max |mirror(FK(lx, ly, θ)) − FK(ly, lx, θ)| < {SYMMETRY_TOL:g} mm and same reachability",
              holds=sym < SYMMETRY_TOL and same_reach,
              text=f"{sci_text(sym)} mm (y from {ext[1, 0]:.0f} to {ext[1, 1]:.0f} mm)".replace("from -", "from −"),
              answers="003.c4")
    tables["table3"] = table_workspace(ws, sizes["n_workspace"])
    vox = voxel_counts(w0.points)
    tables["table_e2"] = table_voxels(vox, len(w0.points), vol_hm)
    v_fine, v_coarse = min(VOXELS), max(VOXELS)
    spv = len(w0.points) / (vol_hm / v_fine ** 3)
    growth = vox[v_fine][-1] / vox[v_fine][-2] - 1
    reg.claim("prp3_voxel_fine", f"the {v_fine:g}-mm voxel volume falls short of the volume because of undersampling: "
              f"fewer than {FINE_SPV_MAX:g} samples per voxel, and it still grows with the sample",
              value=[vox[v_fine][-1] / 1e6, spv, growth],
              criterion=f"voxel volume < hit-or-miss volume, < {FINE_SPV_MAX:g} samples per {v_fine:g}-mm voxel, and > {FINE_GROWTH_MIN:.0%} growth from half to all samples",
              holds=vox[v_fine][-1] < vol_hm and spv < FINE_SPV_MAX and growth > FINE_GROWTH_MIN,
              text=f"{vox[v_fine][-1] / 1e6:.2f} dm³ with {spv:.2g} samples per voxel, +{growth:.0%} from half to all samples")
    reg.claim("prp3_voxel_coarse", f"{v_coarse:g}-mm voxels overstate the volume: the region is thin, so its boundary voxels count whole",
              value=[vox[v_coarse][-1] / 1e6, vol_hm / 1e6],
              criterion=f"{v_coarse:g}-mm voxel volume > hit-or-miss volume + {N_SIGMA:g} standard errors",
              holds=vox[v_coarse][-1] > vol_hm + N_SIGMA * se_hm,
              text=f"{vox[v_coarse][-1] / 1e6:.1f} dm³ against {vol_hm / 1e6:.1f} dm³")
    verdicts = voxel_verdicts(vox, vol_hm, se_hm)
    reg.claim("prp3_voxel_none", f"no voxel edge of Table {table_label('table_e2')} gives the volume at this sample size: every count overstates it "
              "or still grows with the sample",
              value={f"{v:g}": list(vd) for v, vd in verdicts.items()},
              criterion=f"for every edge: voxel volume > hit-or-miss volume + {N_SIGMA:g} standard errors, or > "
                        f"{FINE_GROWTH_MIN:.0%} growth from half to all samples",
              holds=all(over or grows for over, grows in verdicts.values()),
              text=count_phrase(sum(not (over or grows) for over, grows in verdicts.values()), f"{len(VOXELS)}",
                                f"voxel edge{{s}} from {min(VOXELS):g} to {max(VOXELS):g} mm")
                   .replace(" is", " gives it").replace(" are", " give it"))
    data.update(workspace=ws, volume_hit_or_miss=(vol_hm, se_hm), voxels=vox, symmetry=sym)

    # -- exercises
    ex1, ex2, ex3 = exercise_1(geom), exercise_2(geom), exercise_3(geom, seed)
    values.update(prp3_ex1_real=f"{ex1['real']}", prp3_ex1_inside=f"{ex1['inside']}", prp3_ex2_lx=f"{ex2['lx']:.3f}",
                  prp3_ex1_modes_inside=_listing(ex1["modes_inside"]), prp3_ex1_modes_outside=_listing(ex1["modes_outside"]),
                  prp3_ex3_hm=f"{ex3['v_hm'] / 1e6:.2f} ± {ex3['se_hm'] / 1e6:.2f} dm³",
                  prp3_ex3_jac=f"{ex3['v_jac'] / 1e6:.2f} ± {ex3['se_jac'] / 1e6:.2f} dm³")
    reg.claim("prp3_ex3", "with 10⁴ samples each, the two volume routes agree: the Jacobian integral lies within a few "
              "standard errors of the hit-or-miss estimate (the one whose standard error is sound)",
              value=[ex3["v_hm"] / 1e6, ex3["se_hm"] / 1e6, ex3["v_jac"] / 1e6],
              criterion=f"|Jacobian − hit-or-miss| < {N_SIGMA:g} standard errors of hit-or-miss, {EX3_N:,} samples each",
              holds=abs(ex3["v_jac"] - ex3["v_hm"]) < N_SIGMA * ex3["se_hm"],
              text=f"{abs(ex3['v_jac'] - ex3['v_hm']) / ex3['se_hm']:.1f} standard errors apart")
    data.update(exercise_1=ex1, exercise_2=ex2, exercise_3=ex3)

    # -- figures, the Explore grid, the parameter table
    stage("exercises and condition maps")
    LX, LY, maps = condition_maps(geom, CONDITION_GRID_QUICK if quick else CONDITION_GRID)
    register_condition_singular(reg, maps)
    figures = {"mechanism": drawing.prp3_mechanism(geom),
               "errors": drawing.errors_figure(rt, law, far_len=FAR_LEN, predicted_exponent=PREDICTED_EXPONENT),
               "workspace": drawing.workspace_figure(wall.points, w0.points),
               "condition": drawing.condition_figure(LX, LY, maps, inverse_level=INVERSE_LEVEL)}
    data["explore_grid"] = EXPLORE_GRID_QUICK if quick else EXPLORE_GRID
    values["prp3_explore_step"] = f"{max(np.diff(data['explore_grid']['lx']).max(), np.diff(data['explore_grid']['ly']).max()):g}"
    extra = geometry_rows(geometry) + parameter_rows(sizes, quick, data["explore_grid"])
    tables["parameters"] = parameter_table(run=params, extra=extra, spec=PARAMETERS)  # the evidence page's
    tables["key_parameters"] = parameter_table(run=params, extra=extra, spec=PARAMETERS, key=KEY_ROWS,
                                               key_title="The robot's dimensions").partition("<details")[0].strip()
    tables["criteria"] = parameter_table(extra=criteria_rows(), title="Constants of the claims' criteria")

    return StudyResult("prp3_roundtrip", params, reg, tables=tables, figures=figures, data=data, values=values,
                       wall_s=stage.elapsed())


def evidence(res) -> dict:
    """What the chapter's evidence page shows, as keyword arguments of
    :meth:`robolib.book.result.StudyResult.glue_evidence`: the tables of :data:`EVIDENCE_TABLES`, every parameter,
    the constants of the criteria, and the reports of the large round trip, of the error-law fit and of the
    default-mode volume (Markdown).

    >>> sorted(evidence(type("R", (), {"data": {"reports": {"round_trip": "a", "error_law": "b"}}})()))
    ['markdown', 'tables']
    """
    return dict(tables=(*EVIDENCE_TABLES, "parameters", "criteria"),
                markdown={name: "```text\n" + text + "\n```" for name, text in res.data["reports"].items()})


#: The Explore panel's figure [in] (shown at 96 px per inch: 461 × 442 px) and its text sizes [pt]: tick labels,
#: axis labels, title (an unreachable input's title, the kernel's message, at the tick labels' size).
EXPLORE_SIZE, EXPLORE_TICK_PT, EXPLORE_LABEL_PT, EXPLORE_TITLE_PT = (4.8, 4.6), 9.0, 10.0, 10.0


def explore_figure(geom: kin.Geometry, lx: float, ly: float, theta: float):
    """:func:`robolib.prp3.drawing.prp3_explore_figure` at the panel's size, its text enlarged to at least
    :data:`EXPLORE_TICK_PT` (12 px as the browser shows the SVG at its natural size).

    >>> from matplotlib.text import Text
    >>> fig = explore_figure(kin.Geometry(), 200.0, 200.0, 0.0)
    >>> fig.draw_without_rendering()
    >>> min(t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()) >= EXPLORE_TICK_PT
    True
    """
    fig = drawing.prp3_explore_figure(geom, lx, ly, theta, size=EXPLORE_SIZE)
    ax = fig.axes[0]
    ax.tick_params(labelsize=EXPLORE_TICK_PT)
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.label.set_size(EXPLORE_LABEL_PT)
    title = ax.title
    title.set_fontsize(EXPLORE_TICK_PT if title.get_color() == "red" else EXPLORE_TITLE_PT)
    return fig


def explore_panel(res):
    """The chapter's Explore panel: the robot redrawn at a grid of inputs (``robolib.book.notebook.explore``)."""

    geom = res.data["geometry"]

    def draw(lx, ly, theta_deg):
        """One figure of the panel: SVG (about 12 kB, smaller than its PNG) in an <img> with alt text."""
        fig = explore_figure(geom, lx, ly, np.radians(theta_deg))
        return drawing.svg_img_html(fig, alt=f"3-PRP robot at lx = {lx:g} mm, ly = {ly:g} mm, theta = {theta_deg:g} deg; "
                                             + fig.axes[0].get_title().replace("\n", "; ").replace("κ", "condition number"))

    box = explore(draw, res.data["explore_grid"], labels={"lx": "lx [mm]", "ly": "ly [mm]", "theta_deg": "θ [deg]"},
                   initial={"lx": 200.0, "ly": 200.0, "theta_deg": 0.0},
                   ranges={"lx": (*geom.lx_range, 1.0), "ly": (*geom.ly_range, 1.0),
                           "theta_deg": (*np.degrees(geom.theta_range), 0.5)},
                   caption="The 3-PRP robot drawn by the forward kinematics at the chosen slider positions "
                           "<i>l</i><sub>x</sub>, <i>l</i><sub>y</sub> and crank angle <i>θ</i>. The title gives the "
                           "platform centre <i>J</i>, the working mode (<i>σ</i><sub>1</sub>, <i>σ</i><sub>2</sub>, "
                           "<i>σ</i><sub>3</sub>) and <i>κ</i>, the condition number of ∂<i>J</i>/∂<i>q</i> with its crank "
                           "column scaled by <i>l</i><sub>1</sub> (all its columns in mm, as in the condition-number figure); an "
                           "unreachable input is titled, in red, with the reason.",
                   alt="3-D drawing of the 3-PRP robot (grey rails, black sliders and crank, blue rods, orange "
                       "platform) at the chosen slider positions and crank angle, titled with the platform centre, "
                       "the working mode and the condition number")
    return number_caption(box, "Explore panel", "3.1")
