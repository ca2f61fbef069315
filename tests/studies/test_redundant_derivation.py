"""The derivation study (robolib.studies.redundant_derivation.study): its claims, tables, data, parameters and Models page.

Quick runs only (``quick_study`` caches them per session); a run with another
parameter costs about a second once the sympy derivation is cached.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path

import numpy as np
import pytest
from fuzzing import names

from conftest import PROMPT_CPU_S, refusal, solution_outputs
from robolib import ParameterError, redundant, study
from robolib.studies.redundant_derivation import experiments as checks
from robolib.studies.redundant_derivation import study as sd

ROOT = Path(__file__).resolve().parents[2]
NAME = "redundant_derivation"
IDS = ["rd_pendulum", "rd_me_identity", "rd_err_M", "rd_err_C", "rd_err_h", "rd_err_le", "rd_err_layers", "rd_dev_sequential",
       "rd_dev_multipliers", "rd_dev_kkt", "rd_dev_fast", "rd_dev_reactions", "rd_layer2_split", "rd_layer2_not_reaction",
       "rd_null_symbolic", "rd_n_routes", "rd_tau_routes", "rd_tau_min_perp", "rd_preload_reactions", "rd_travel",
       "rd_ke_stab", "rd_ke_raw", "rd_ke_order", "rd_ke_step", "rd_ke_stretch", "rd_drift_stab", "rd_drift_raw",
       "rd_drift_raw_grows", "rd_drift_stab_level", "rd_track", "rd_ex2_preload", "rd_ex4_gauss"]
ROBOT = redundant.load()


@pytest.fixture
def res(quick_study):
    return quick_study(NAME)


def _value(res, cid):
    return res[cid].value


# ---- the quick run --------------------------------------------------------------------------------
def test_every_claim_registered_and_holding(res):
    assert [r["id"] for r in res.records()] == IDS
    assert res.failing() == []
    assert all(r["study"] == NAME and r["source"] == "000" for r in res.records())
    assert res.params == study.defaults(NAME) | {"quick": True}


def test_round_off_claims_are_round_off(res):
    """The derivation equals the kernels: every difference far below the criterion, not just below it."""
    for cid in ("rd_pendulum", "rd_err_M", "rd_err_C", "rd_err_h", "rd_err_le", "rd_err_layers"):
        assert 0.0 <= _value(res, cid) < sd.ROUNDOFF * 1e-3, cid
    for cid in ("rd_dev_sequential", "rd_dev_multipliers", "rd_dev_kkt", "rd_dev_fast", "rd_dev_reactions",
                "rd_layer2_split", "rd_ex4_gauss", "rd_n_routes", "rd_tau_routes", "rd_tau_min_perp", "rd_preload_reactions"):
        assert 0.0 <= _value(res, cid) < sd.AGREE * 1e-3, cid
    assert _value(res, "rd_me_identity") is True and _value(res, "rd_null_symbolic") is True
    # each claim's text is its value as the prose prints it
    assert res["rd_err_M"].text == f"{_value(res, 'rd_err_M'):.1e}"
    # a residual reads as a residual, never as a force or a motion
    # ... and reads as prose in its sentence: the bound it is below, not a bracket restating the criterion
    assert res["rd_pendulum"].text == "to round-off: the largest difference is below 10⁻¹⁰" == sd.pendulum_text(0.0)
    assert sd.ROUNDOFF == 1e-10 and sd.pendulum_text(2 * sd.ROUNDOFF).startswith("only to 2.0e-10")
    assert res["rd_preload_reactions"].text.startswith("to round-off (largest difference from the closed form ")
    assert res["rd_err_layers"].value == max(res.data["layer_errors"].values())


def test_layer2_correction_is_not_the_reaction(res):
    """Newtons of difference, and the same kind of gap in exercise 3 (the layers in the other order)."""
    gap = _value(res, "rd_layer2_not_reaction")
    assert 0.1 < gap < 100.0
    ex3 = solution_outputs(NAME)[2]                                    # the solution's code, as the notebook runs it
    ddq, correction = (float(x) for x in re.findall(r": (\S+)(?: N)?\n", ex3))
    assert ddq < 1e-9 and correction > sd.DIFFERS
    # ... because it is the reaction plus the change of the closure forces, by a gap of the same size as the claim's
    assert _value(res, "rd_layer2_split") < sd.AGREE * 1e-3 < 0.1 < res.data["deviations"]["layer2"] == gap
    # for scale, the lecture glues beside the gap the largest bearing-reaction component of the same states
    reaction_max = res.data["deviations"]["reaction_max"]
    assert reaction_max > 0.1 and res.values["rd_reaction_max"] == f"{reaction_max:.2g}"


def test_the_pendulum_example_is_the_textbook_pendulum():
    """The lecture's visible worked example, run as the notebook runs it, against the textbook pendulum; its typed
    inputs are the study's PENDULUM, so the claim rd_pendulum is about the example the reader sees."""
    import jupytext

    nb = jupytext.read(ROOT / "notebooks" / f"{NAME}.md")
    cell = next(c.source for c in nb.cells if c.cell_type == "code" and "constraints.udwadia_kalaba(M, Q, A, b)" in c.source
                and not c.metadata.get("tags"))
    p = checks.PENDULUM
    assert f"m, g, l = {p['m']}, {p['g']}, {p['length']}" in cell and f"theta, omega = {p['theta']}, {p['omega']}" in cell
    ns = {}
    exec(cell, ns)  # noqa: S102  (the chapter's own example)
    qc, ddq = ns["Qc"], ns["ddq"]
    x, y, length = ns["x"], ns["y"], p["length"]
    assert np.linalg.norm(qc) == pytest.approx(p["m"] * (p["g"] * np.cos(p["theta"]) + length * p["omega"] ** 2))
    assert np.dot(qc, [x, y]) < 0 and abs(x * qc[1] - y * qc[0]) < 1e-12           # along the rod, towards the pivot
    assert (x * ddq[1] - y * ddq[0]) / length**2 == pytest.approx(-p["g"] / length * np.sin(p["theta"]))
    ex = checks.pendulum_example(**p)
    assert ex["violation"] == pytest.approx(-length**2 * p["omega"] ** 2 - length * p["g"] * np.cos(p["theta"]))


def test_integration_claims_against_their_runs(res):
    runs = res.data["runs"]
    stab, raw = runs["driven"][checks.STABILISED], runs["driven"][checks.UNSTABILISED]
    assert res.data["effective"] == {"n_checks": sd.QUICK_N_CHECKS, "t_free": sd.QUICK_T_FREE, "t_drift": sd.QUICK_T_DRIFT}
    assert stab.t[-1] == pytest.approx(sd.QUICK_T_DRIFT)
    assert _value(res, "rd_drift_stab") == stab.drift.max() < redundant.DRIFT_BOUND
    assert _value(res, "rd_drift_raw") == raw.drift.max() > stab.drift.max()
    assert _value(res, "rd_drift_raw_grows") > sd.MIN_GROWTH
    # with stabilisation the drift stays level over the run: its late maximum is not above its early one (10 %)
    assert _value(res, "rd_drift_stab_level") == runs["drift_growth"][checks.STABILISED] <= sd.LEVEL_MAX
    late = stab.t > 0.5 * stab.t[-1]
    assert stab.drift[late].max() <= sd.LEVEL_MAX * stab.drift[~late].max()
    # the free motion starts where the chapter says, at the speed it says, and travels less than speed * time allows
    free = runs["free"][checks.STABILISED]
    assert np.allclose(free.end_effector[0], ROBOT.centroid + np.array(sd.FREE_START))
    assert 0.05 < _value(res, "rd_travel") < 2 * np.hypot(*sd.FREE_VELOCITY) * sd.QUICK_T_FREE
    # fourth-order RK4: halving the step divides the energy error by about 16
    assert 12 < _value(res, "rd_ke_step") < 20
    assert _value(res, "rd_ke_stab") > _value(res, "rd_ke_raw") > 0
    assert _value(res, "rd_ke_order") == pytest.approx(_value(res, "rd_ke_stab") / _value(res, "rd_ke_raw"))
    # the energy errors rise where the free motion passes chain 1's stretched pose (the quick run reaches it)
    assert 0 < _value(res, "rd_ke_stretch") < 1 / sd.STRETCH_GROWTH
    assert "chain 1 comes within" in next(r["text"] for r in res.records() if r["id"] == "rd_ke_stretch")


def test_tables_values_and_figures(res):
    # the check tables are the evidence page's S1..E4; the lecture keeps only the short table of key parameters
    assert set(res.tables) == {"key_parameters", *sd.EVIDENCE_TABLES}
    for k, (name, n) in enumerate([("kernels", 4), ("layers", 4), ("routes", 9), ("redundancy", 6)], start=1):
        text = res.tables[name]
        assert sd.EVIDENCE_TABLES[k - 1] == name and text.startswith(f"**Table S{k}** — ")
        assert len([ln for ln in text.splitlines() if ln.startswith("| ")]) == n + 1, name  # header + rows
    assert res["rd_err_M"].text in res.tables["kernels"] and res["rd_dev_kkt"].text in res.tables["routes"]
    key, full = res.tables["key_parameters"], res.tables["parameters"]
    assert key.count("\n| `") == len(sd.KEY_ROWS) and "| `link_length` | 0.25 | m," in key and "`friction.mu`" not in key
    assert "<details" not in key + full and "`friction.mu`" in full and "`quick` | true" in full  # every parameter
    assert "ROUNDOFF" in res.tables["criteria"] and "ROUNDOFF" not in full   # criterion constants beside the claims
    assert res.values["rd_n_checks"] == str(sd.QUICK_N_CHECKS) and res.values["rd_t_drift"] == f"{sd.QUICK_T_DRIFT:g}"
    red = res.data["redundancy"]
    # independent: at the centroid of the equilateral base every chain carries the same load per N m of preload
    q = redundant.inverse_kinematics(ROBOT, ROBOT.centroid)
    at_centroid = np.linalg.norm(redundant.preload_reactions(ROBOT, q), axis=-1)
    assert np.allclose(at_centroid, at_centroid[0]) and red["load_min"] < at_centroid[0] < red["load_max"]
    assert set(res.figures) == {"mechanism", *sd.EVIDENCE_FIGURES} and sd.EVIDENCE_FIGURES == ("energy",)
    assert len(res.figures["energy"].axes) == 2
    assert all(k in res.data["latex"] for k in ("lagrangian", "mass_matrix", "coriolis", "tip_jacobian", "closure", "actuation"))


def test_the_exercise_solutions_compute_their_answers_with_the_library(res):
    """Each solution is visible library code, run as the notebook runs it: the translational masses, the preload's
    unchanged accelerations and its bearing loads equal to p |dF/dp| (the study's range), the layers' order."""
    ex1, ex2, _, ex4 = solution_outputs(NAME)
    masses = [tuple(float(x) for x in m) for m in re.findall(r"M_11 = (\S+) kg; m_a \+ m_b \(\+ m_e\) = (\S+) kg", ex1)]
    assert masses == [pytest.approx((1.1, 1.1)), pytest.approx((0.9, 0.9))]      # 0.5 + 0.4 (+ 0.2) kg
    # the solution's text states the two masses and their difference m_e: the values the code prints
    stated = [float(res.values[k]) for k in ("rd_ex1_chain1", "rd_ex1_chain2", "rd_me")]
    assert stated == pytest.approx([masses[0][0], masses[1][0], masses[0][0] - masses[1][0]])
    assert float(re.search(r"accelerations: (\S+)", ex2).group(1)) < 1e-9
    change, predicted = (np.array([float(x) for x in row.split()]) for row in re.findall(r": \[([^\]]+)\]", ex2))
    assert np.allclose(change, predicted, atol=1e-3) and np.all(change > 5.0)
    lo, hi = (float(v) for v in res.values["rd_ex2_change"].split("–"))
    assert lo <= change.min() + 0.5 and change.max() - 0.5 <= hi
    # the prose's "11–15 N at this state" is the claim rd_ex2_preload: its text is that range, checked against p |dF/dp|
    claim = res["rd_ex2_preload"]
    assert claim.text == res.values["rd_ex2_change"] + " N" and claim.holds and 0.0 <= claim.value < sd.AGREE * 1e-3
    # the exercise asks "by how much per N m?": the answer is the same change divided by the preload added
    per_lo, per_hi = (float(v) for v in res.values["rd_ex2_per_nm"].split("–"))
    assert (per_lo, per_hi) == pytest.approx((change.min() / sd.EXERCISE_PRELOAD, change.max() / sd.EXERCISE_PRELOAD),
                                             abs=0.06)
    # exercise 4 (Gauss's principle): every other admissible acceleration raises Z; Q_c does no work on them
    increases = [float(x) for x in re.search(r"accelerations: \[([^\]]+)\]", ex4).group(1).split()]
    assert len(increases) == sd.EXERCISE_TRIALS and min(increases) > 0
    assert float(re.search(r"\|N\^T Q_c\|: (\S+) N", ex4).group(1)) < sd.AGREE
    assert res["rd_ex4_gauss"].holds and min(increases) == pytest.approx(sd.gauss_exercise(ROBOT)["min_increase"], abs=1e-5)


def test_lecture_shows_no_check_table_and_the_evidence_page_shows_them():
    """At most 4 tables in the lecture: it displays only the key parameters (and the folded claims); every evidence
    table is glued and shown on the evidence page, and each moved check leaves a link there."""
    lecture = (ROOT / "notebooks" / f"{NAME}.md").read_text()
    evidence = (ROOT / "book" / "evidence" / f"{NAME}.md").read_text()
    assert re.findall(r'res\.table\("(\w+)"\)', lecture) == ["key_parameters"]
    assert 'tables=redundant_derivation.study.EVIDENCE_TABLES' in lecture
    run = lecture[lecture.index("## The chapter's run"):lecture.index("res = redundant_derivation.run(")]
    assert f"{{doc}}`evidence page </evidence/{NAME}>`" in run     # the run section links the moved checks
    for name in (*sd.EVIDENCE_TABLES, "claims"):
        assert f"```{{glue:md}} rd_ev_{name}\n:format: myst\n```" in evidence, name
    # the integration runs (energy, drift) are evidence: their figure and claims are on the evidence page only
    assert "figures=redundant_derivation.study.EVIDENCE_FIGURES" in lecture
    assert "```{glue:figure} rd_ev_energy\n:name: fig-redundant_derivation-energy" in evidence
    assert "Energy and constraint drift" not in lecture and "## Energy and constraint drift" in evidence
    for cid in ("rd_ke_", "rd_drift_", "rd_track", "rd_travel"):
        assert cid not in lecture and cid in evidence, cid
    # the lecture opens with the question and the mechanism; the run follows the mechanism, before any use of res
    heads = re.findall(r"^## (.+)$", lecture, flags=re.M)
    assert heads[:3] == ["The mechanism", "The chapter's run", "The idea of Udwadia–Kalaba: correct the free motion"]
    assert lecture.index("res = redundant_derivation.run(") < re.search(r"\bres\.", lecture).start()
    assert "A ✓ marks a result checked in this run ({ref}`how claims work <findings-computed>`)." in lecture
    summary = lecture.rpartition("```{code-cell} ipython3")[2]     # the last cell; its claims table is on the evidence page
    assert summary.startswith("\n:tags: [remove-cell]\n\nres.summary()")


def test_figures_fit_the_column(res):
    """Every figure at most 6.7 in wide and its smallest text at least 9 px as displayed in the 672-px column."""
    from robolib.book.notebook import smallest_font_px

    figs = [*res.figures.values(), sd.preload_figure(ROBOT, 0.0, 0.0, 1.0)]
    for fig in figs:
        width = fig.get_size_inches()[0]
        assert width <= 6.7 and smallest_font_px(fig, 100) * min(1, 672 / (width * 100)) >= 9


def test_sympy_preload_direction_is_symmetric_at_the_centroid():
    q = redundant.inverse_kinematics(ROBOT, ROBOT.centroid)
    assert np.allclose(checks.sympy_preload_direction(q), np.full(3, 1 / np.sqrt(3)))


# ---- changed parameters -----------------------------------------------------------------------------
def test_short_driven_run_flips_the_drift_claim(quick_study, res):
    """At 1 s the unstabilised drift has not yet outgrown the stabilised one: the claim must fail."""
    short = quick_study(NAME, t_drift=1.0)
    assert short.failing() == ["rd_drift_raw"]
    assert short["rd_drift_raw"].value < res["rd_drift_raw"].value / 5
    assert short["rd_drift_stab"].value <= res["rd_drift_stab"].value
    assert "does not hold" in short["rd_drift_raw"].markdown()


def test_short_free_run_fails_the_travel_claim(quick_study):
    short = quick_study(NAME, t_free=0.1)
    assert "rd_travel" in short.failing()
    assert short["rd_travel"].value < sd.MIN_TRAVEL


def test_another_seed_moves_the_random_checks_only(quick_study, res):
    other = quick_study(NAME, seed=3)
    assert other.failing() == []
    for cid in ("rd_layer2_not_reaction", "rd_err_C", "rd_dev_sequential"):
        assert other[cid].value != res[cid].value, cid
    for cid in ("rd_travel", "rd_ke_stab", "rd_drift_raw", "rd_track", "rd_n_routes"):  # no random draw
        assert other[cid].value == res[cid].value, cid


def test_fewer_checks_are_fewer_states(quick_study):
    small = quick_study(NAME, n_checks=10)
    assert small.values["rd_n_checks"] == "10" and "over 10 random states" in small.tables["kernels"]
    assert len(small.data["identity_states"][1]) == 10 and "at 10 states" in small.tables["routes"]
    assert small.data["redundancy"]["n_states"] == checks.MIN_CIRCLE_STATES
    assert small.failing() == []


def test_deterministic(res):
    again = sd.run(quick=True)
    assert [(r["id"], r["value"]) for r in again.records()] == [(r["id"], r["value"]) for r in res.records()]


# ---- declared parameters: every invalid value is refused before any work -------------------------------
NAN, INF = float("nan"), float("inf")
#: name -> (invalid values, the valid values as the error states them)
INVALID = {
    "data_file": ([3, "", None, True, ["redundant/default.yaml"]], "a parameter file"),
    "n_checks": ([0, -1, 2.5, 30.0, True, NAN, INF, "300", None, [30]], "an integer >= 1"),
    "t_free": ([0.0, redundant.DT * 0.999, -1.0, NAN, INF, -INF, True, "3", None, [3.0]], "a number >= 0.004 s"),
    "t_drift": ([0.0, redundant.DT * 0.999, -10.0, NAN, INF, -INF, False, "10", None, (10.0,)], "a number >= 0.004 s"),
    "seed": ([-1, 1.5, 4.0, True, NAN, INF, "4", None], "an integer >= 0"),
    "quick": (["yes", "True", 1, 0, None, NAN], "True or False"),
}
BAD = [(name, v) for name, (values, _) in INVALID.items() for v in values]
#: Valid values at the boundaries of each range (and other accepted forms).
VALID = {"data_file": ["redundant/geared.yaml", str(ROOT / "data" / "redundant" / "default.yaml")],
         "n_checks": [1, 10], "t_free": [redundant.DT, 3, 1e6], "t_drift": [redundant.DT, 5, 1e6],
         "seed": [0, 2**63], "quick": [True, False]}


def _run_refused(match, **params):
    """``study.run`` with ``params`` (quick unless given) raises ParameterError matching ``match``, before any work."""
    _, cpu = refusal(lambda: study.run(NAME, **{"quick": True, **params}), match)
    assert cpu < PROMPT_CPU_S, f"{params}: refused after {cpu:.2f} s of CPU"


def test_every_parameter_is_declared_in_order():
    assert list(sd.PARAMETERS) == list(inspect.signature(sd.run).parameters) == list(INVALID)
    assert study.parameters(NAME) == sd.PARAMETERS
    assert {k: p.default for k, p in sd.PARAMETERS.items()} == study.defaults(NAME)


@pytest.mark.parametrize("name, value", BAD, ids=[f"{n}={v!r}" for n, v in BAD])
def test_invalid_values_are_refused_before_any_work(name, value):
    valid = INVALID[name][1]
    _run_refused(names(f"{name} =", name, valid), **{name: value})


@pytest.mark.parametrize("name", list(VALID))
def test_boundary_values_are_valid(name):
    for v in VALID[name]:
        sd.PARAMETERS[name].validate(name, v)


def test_a_direct_call_is_checked_too():
    """The notebook calls run itself: the declarations guard that call as well."""
    with pytest.raises(ParameterError, match=names("t_drift = 0.001", ">= 0.004 s")):
        sd.run(t_drift=0.001, quick=True)


def test_unknown_parameter_and_missing_file():
    _run_refused(names("unknown parameter", "'n_sampels'"), n_sampels=5)
    _run_refused(names("data_file", "'redundant/none.yaml'", "not found"),
                 data_file="redundant/none.yaml")


def test_a_robot_that_cannot_reach_the_circle_is_refused_up_front(tmp_path):
    """Model-dependent: the reference circle's inverse kinematics, computed before any work, names data_file."""
    short = tmp_path / "short.yaml"
    short.write_text((ROOT / "data" / "redundant" / "default.yaml").read_text()
                     .replace("link_length: 0.25 ", "link_length: 0.14 "))
    assert "link_length: 0.14 " in short.read_text()
    _run_refused(names("data_file", str(short), "reference circle", f"{sd.MODEL_CHECK_TIMES} times", "not reachable",
                       "unreachable"),
                 data_file=str(short))


# ---- the Explore panel ------------------------------------------------------------------------------
def test_explore_grid_opens_at_zero_and_holds_every_figure(res):
    for grid in (sd.EXPLORE_GRID, sd.QUICK_EXPLORE_GRID):
        assert all(0.0 in v for v in grid.values())
        (x0, x1), (y0, y1) = sd.explore_limits(ROBOT, grid)
        for dx in grid["dx_mm"]:
            for dy in grid["dy_mm"]:
                q = redundant.inverse_kinematics(ROBOT, ROBOT.centroid + np.array([dx, dy]) * 1e-3)
                P = redundant.drawing.joint_points(ROBOT, q).reshape(-1, 2)
                assert np.all((P[:, 0] > x0) & (P[:, 0] < x1) & (P[:, 1] > y0) & (P[:, 1] < y1)), (dx, dy)
    assert res.data["explore_grid"] is sd.QUICK_EXPLORE_GRID


def test_explore_panel_opens_at_the_centroid_with_a_preload_that_loads_the_bearings():
    class Small:
        data = {"robot": ROBOT, "explore_grid": {"dx_mm": [0.0, 30.0], "dy_mm": [0.0],
                                                 "preload": [0.0, sd.EXPLORE_INITIAL_PRELOAD]}}

    box = sd.explore_panel(Small, mode="static")
    sliders = [w for w in box.children if hasattr(w, "options")]
    assert [s.value for s in sliders] == [0.0, 0.0, sd.EXPLORE_INITIAL_PRELOAD]
    assert '<span class="caption-number">Explore panel 1.1.</span>' in box.children[-1].value
    assert sd.EXPLORE_INITIAL_PRELOAD > 0
    # it opens inside the slider's range, not at an end, so the reader can move it both ways
    assert -sd.EXPLORE_PRELOAD_MAX < sd.EXPLORE_INITIAL_PRELOAD < sd.EXPLORE_PRELOAD_MAX
    for grid in (sd.EXPLORE_GRID, sd.QUICK_EXPLORE_GRID):
        assert sd.EXPLORE_INITIAL_PRELOAD in grid["preload"]
        assert min(grid["preload"]) < sd.EXPLORE_INITIAL_PRELOAD < max(grid["preload"])


def test_preload_figure_at_the_centroid():
    fig = sd.preload_figure(ROBOT, 0.0, 0.0, 2.0)
    title = fig.axes[0].get_title()
    loads = [float(v) for v in title.split("$|F_i|$ = ")[1].removesuffix(" N").split(", ")]
    q = redundant.inverse_kinematics(ROBOT, ROBOT.centroid)
    expected = 2.0 * np.linalg.norm(redundant.preload_reactions(ROBOT, q), axis=-1)
    assert loads == pytest.approx(expected, abs=0.01)
    bad = sd.preload_figure(ROBOT, 600.0, 0.0, 0.0)
    assert "unreachable" in bad.axes[0].get_title()


# ---- the Models page --------------------------------------------------------------------------------
def _book_extension():
    spec = importlib.util.spec_from_file_location("robolib_book", ROOT / "book" / "_ext" / "robolib_book.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PAGE = (ROOT / "book" / "models" / "redundant.md").read_text()


def test_models_page_constants_come_from_the_code():
    ext = _book_extension()
    targets = re.findall(r"\{robolib-value\}`([^`]+)`", PAGE)
    assert len(targets) >= 6
    for t in targets:
        assert ext.code_value(t)  # every constant the page names exists
    assert "r_c = 0.05" not in PAGE and "= 20\\ \\text{s}^{-1}" not in PAGE  # no copied constants left


def test_models_page_numbers_match_the_parameter_file():
    """The page's prose numbers that live in data/redundant/default.yaml (and calibrate_stribeck's rule)."""
    r = ROBOT
    assert np.linalg.norm(r.base[1] - r.base[0]) == pytest.approx(0.5) and "side 0.5 m" in PAGE
    assert r.link_length == 0.25 and "links of 0.25 m" in PAGE
    assert r.active_com == r.link_length / 2 and r.passive_com == r.link_length / 2 and "$r = l/2$" in PAGE
    assert r.active_inertia == pytest.approx(r.active_mass * r.link_length**2 / 12)
    assert r.mu == 0.1 and "$\\mu = 0.1$" in PAGE
    assert r.journal_radius == 0.01 and "$R = 10$ mm" in PAGE
    sig = inspect.signature(redundant.calibrate_stribeck).parameters
    assert "$T_s = 1.5\\,T_c$, $w_s = 0.1$ rad/s" in PAGE and "$b_v = 0$" in PAGE
    assert sig["static_ratio"].default == 1.5 and sig["stribeck_velocity"].default == 0.1 and sig["viscous"].default == 0
    assert r.static_torque == pytest.approx(1.5 * r.coulomb_torque, rel=1e-3)
    assert r.stribeck_velocity == 0.1 and r.viscous == 0.0
    # the sign rule of the preload direction: unit length, sum(n) > 0
    assert "unit length, $\\sum_i n_i > 0$" in PAGE
    q, _, _ = redundant.reference_motion(r, np.linspace(0, 2, 7))
    n = redundant.preload_direction(r, q)
    assert np.allclose(np.linalg.norm(n, axis=-1), 1) and np.all(n.sum(axis=-1) > 0)


def test_the_live_explore_panel_spans_the_reachable_offsets_and_draws_at_their_ends(res, monkeypatch):
    monkeypatch.setenv("JPY_SESSION_NAME", "chapter")      # as in a kernel JupyterLab started: the live panel
    robot = res.data["robot"]
    dx, dy, preload = sd.explore_panel(res).children[1:4]
    assert preload.min == -sd.EXPLORE_PRELOAD_MAX and preload.max == sd.EXPLORE_PRELOAD_MAX
    for slider, axis in ((dx, [1.0, 0.0]), (dy, [0.0, 1.0])):
        ends = robot.centroid + np.outer([slider.min, slider.max], axis) * 1e-3
        beyond = robot.centroid + np.outer([slider.min - 2.0, slider.max + 2.0], axis) * 1e-3
        reach = np.linalg.norm(ends[:, None] - robot.base[None], axis=-1).max(axis=1)
        assert (reach < 2 * robot.link_length).all() and (reach > 2 * robot.link_length - 3e-3).all()
        for p in beyond:
            with pytest.raises(ValueError):
                redundant.inverse_kinematics(robot, p)
    assert dy.max > 2 * max(res.data["explore_grid"]["dy_mm"])      # beyond the quick grid
