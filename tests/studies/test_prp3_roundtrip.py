"""The 3-PRP round-trip study (robolib.studies.prp3_roundtrip.study): its results, claims, parameters and the Models page.

Quick runs only (``quick_study`` of conftest, cached): the default quick run, one with another
seed and one with a workspace sample too small for the coarse voxel claim.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from fuzzing import names

from conftest import PROMPT_CPU_S, refusal, solution_outputs
from robolib import ParameterError, prp3, study
from robolib.book.claims import ClaimsRegister
from robolib.prp3.kinematics import Singularity
from robolib.studies.prp3_roundtrip import study as s3

ROOT = Path(__file__).resolve().parents[2]
NAME = "prp3_roundtrip"


@pytest.fixture(scope="module")
def res(quick_study):
    return quick_study(NAME)


def claim_value(res, cid):
    return res[cid].value


# ---- parameters ---------------------------------------------------------------------------------------


#: Invalid values of every parameter, each kind that applies: a boundary just outside, NaN, inf, a bool for a
#: number, a wrong type, an out-of-range value, None.
BAD_VALUES = {
    "geometry": [3, None, True, "", ["prp3/paper.yaml"], "prp3/nonexistent.yaml", "prp3", "redundant/default.yaml"],
    "n_samples": [0, s3.MIN_SAMPLES - 1, -5, 500, float(s3.MIN_SAMPLES), 5000.0, float("nan"), float("inf"), True,
                  "many", "5000", None, [5000]],
    "n_workspace": [0, s3.MIN_SAMPLES - 1, -5, 500, float(s3.MIN_SAMPLES), 5000.0, float("nan"), float("inf"), True,
                    "many", None],
    "seed": [-1, -2**40, 1.5, 7.0, float("nan"), float("inf"), float("-inf"), True, False, "7", None, [7]],
    "quick": ["yes", "True", 1, 0, 1.0, float("nan"), None],
}
#: Valid values at the edges of each range (accepted by the declaration).
EDGE_VALUES = {
    "geometry": ["prp3/paper.yaml", str(ROOT / "data" / "prp3" / "paper.yaml")],
    "n_samples": [s3.MIN_SAMPLES, s3.QUICK_CAP, 10**9],
    "n_workspace": [s3.MIN_SAMPLES, s3.QUICK_CAP, 10**9],
    "seed": [0, 1, 2**64],
    "quick": [True, False],
}
def _run_raises(params, match):
    """The error of ``study.run`` with ``params`` (quick), which must come before any work (a quick run takes seconds)."""
    msg, cpu = refusal(lambda: study.run(NAME, **{"quick": True, **params}), match)
    assert cpu < PROMPT_CPU_S, f"{params}: the error came after {cpu:.2f} s of CPU"
    return msg


def test_parameters_are_declared_in_the_signatures_order_with_its_defaults():
    assert list(s3.PARAMETERS) == list(study.defaults(NAME)) == ["geometry", "n_samples", "n_workspace", "seed", "quick"]
    assert study.parameters(NAME) == s3.PARAMETERS
    assert {k: p.default for k, p in s3.PARAMETERS.items()} == study.defaults(NAME)
    assert [p.valid_text() for p in s3.PARAMETERS.values()] == [
        "a parameter file (a data/ path or a file on disk)", f"an integer >= {s3.MIN_SAMPLES}",
        f"an integer >= {s3.MIN_SAMPLES}", "an integer >= 0", "True or False"]


@pytest.mark.parametrize("name, value", [(k, v) for k, vs in BAD_VALUES.items() for v in vs if k != "geometry"],
                         ids=lambda x: repr(x))
def test_an_invalid_number_or_flag_is_named_with_its_range_before_any_work(name, value):
    valid = s3.PARAMETERS[name].valid_text()
    _run_raises({name: value}, names(f"{name} =", name, valid))


@pytest.mark.parametrize("value", BAD_VALUES["geometry"], ids=lambda x: repr(x))
def test_an_invalid_geometry_is_named_before_any_work(value):
    msg = _run_raises({"geometry": value}, names(f"geometry = {value!r}"))
    assert "parameter file" in msg or "3-PRP geometry file like 'prp3/paper.yaml'" in msg


PAPER = (ROOT / "data" / "prp3" / "paper.yaml").read_text()


@pytest.mark.parametrize("edit, reason", [
    (("l2: 500.0", "l2: -500.0"), "l2"),                       # the schema: a positive length
    (("lx_range: [0.0, 400.0]", "lx_range: [400.0, 0.0]"), "lx_range"),  # the geometry: min < max
    (("l0: 137.5", "l0: [137.5"), "not valid YAML"),
    (("units:", "unit:"), "field 'unit' is not a known field"),  # a misspelt field
])
def test_an_invalid_geometry_file_is_named_with_the_reason(tmp_path, edit, reason):
    f = tmp_path / "geometry.yaml"
    f.write_text(PAPER.replace(*edit))
    msg = _run_raises({"geometry": str(f)}, names(f"geometry = '{f}'", "3-PRP geometry"))
    assert reason in msg


def test_a_binary_geometry_file_is_named(tmp_path):
    f = tmp_path / "geometry.yaml"
    f.write_bytes(b"\xff\xfe\x00\x81")
    _run_raises({"geometry": str(f)}, names("geometry", "3-PRP geometry file"))


def test_a_geometry_without_the_home_input_is_named_before_any_sampling(tmp_path):
    f = tmp_path / "short.yaml"
    f.write_text(PAPER.replace("l2: 500.0", "l2: 100.0"))  # valid dimensions, but the rods cannot meet at home
    _run_raises({"geometry": str(f)}, names("geometry", "short.yaml'", "forward kinematics", "home input",
                                            "lx = 200 mm", "ly = 200 mm", "theta = 0 rad", "unreachable"))


@pytest.mark.parametrize("name, value", [(k, v) for k, vs in EDGE_VALUES.items() for v in vs], ids=lambda x: repr(x))
def test_the_edges_of_the_ranges_are_valid(name, value):
    s3.PARAMETERS[name].validate(name, value)


def test_a_direct_call_checks_too():
    _, cpu = refusal(lambda: s3.run(quick=True, n_samples=500),
                     names("n_samples = 500", ">= 2000"))
    assert cpu < PROMPT_CPU_S


def test_unknown_parameter_is_named():
    with pytest.raises(ParameterError, match=names("unknown parameter", "'n_sampels'")):
        study.run(NAME, n_sampels=5)


def test_quick_caps_the_samples_and_the_parameter_table_says_so(res):
    assert res.params == {**study.defaults(NAME), "quick": True}
    assert res.data["sizes"]["n_samples"] == s3.QUICK_CAP == len(res.data["round_trip"].q) + res.data["round_trip"].n_unreachable
    table = res.tables["parameters"]                                         # every parameter: the evidence page's
    assert "unit / meaning" in table and f"after the quick cap of {s3.QUICK_CAP:,}" in table
    assert "notebook parameter" not in table and "<details" not in table
    for name, spec in s3.PARAMETERS.items():  # the run's rows: meaning and valid values of the declaration
        assert re.search(rf"^\| `{name}` \| [^|]+ \| {re.escape(spec.note())} \|$", table, re.M), name
    assert "`l2` | 500 |" in table  # the geometry file's fields are listed
    key = res.tables["key_parameters"]                                      # the short table opens the chapter
    assert key.count("\n| `") == len(s3.KEY_ROWS) and "| `l2` | 500 | mm, rod length" in key
    assert "<details" not in key and "N_RULES" not in key
    assert "TOL_LEN" in res.tables["criteria"] and "TOL_LEN" not in table  # criterion constants beside the claims


# ---- tables and figures ---------------------------------------------------------------------------------
def test_tables_and_figures(res):
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    # the lecture's tables are numbered 1, 2; the evidence page's (the ten rows' IK, the voxel counts, the workspace
    # of each mode) S1, S2, S3
    numbers = {"table1": "3.1", "table_e1": "S1", "table2": "3.2", "table3": "S3", "table_e2": "S2"}
    assert list(numbers) == list(s3.TABLES) and s3.EVIDENCE_TABLES == ("table_e1", "table_e2", "table3")
    for name, number in numbers.items():
        assert res.tables[name].startswith(f"**Table {number}** — "), name
    rows1 = [ln for ln in res.tables["table1"].splitlines() if re.match(r"\| \d+ \|", ln)]
    assert len(rows1) == s3.TABLE_ROWS
    assert sum("⚑" in ln for ln in rows1) == int(res.values["prp3_n_flag10"]) == int(res.data["ten"].z_up.sum())
    assert sum("(-1, -1, 1)" in ln for ln in rows1) == claim_value(res, "prp3_n_default10")  # the mode column
    assert "Table 3.1" in res.tables["table_e1"] and "error" in res.tables["table_e1"]
    assert res.tables["table2"].count("\n| (") == claim_value(res, "prp3_n_modes")
    # the two tables' shares come from two samples with two denominators, and their captions say so
    assert "reachable inputs of the round-trip sample" in res.tables["table2"]
    assert "a sample of its own" in res.tables["table3"] and "unreachable ones included" in res.tables["table3"]
    # Table S3: the Jacobian volumes carry no (misleading) standard error; the voxel counts, which do not give the
    # volume, are Table S2, not columns of Table S3
    t3 = res.tables["table3"]
    assert "±" not in t3 and "heavy-tailed" in t3
    assert "voxel" not in t3.lower() and t3.splitlines()[2].count("|") == 7  # six columns
    assert "voxel edge [mm]" in res.tables["table_e2"] and "hit-or-miss volume" in res.tables["table_e2"]
    assert set(res.figures) == {"mechanism", "errors", "workspace", "condition"}
    assert all(isinstance(f, Figure) for f in res.figures.values())
    assert not plt.get_fignums(), "figures are made without pyplot"
    png = res.figure("condition", dpi=20).data
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def _html_values(widget):
    """The values of every HTML widget under ``widget``."""
    own = [widget.value] if type(widget).__name__ == "HTML" else []
    return own + [v for child in getattr(widget, "children", ()) for v in _html_values(child)]


def test_explore_panel_draws_the_robot(res, capsys):
    import types

    grid = {"lx": [200.0], "ly": [200.0, 300.0], "theta_deg": [0.0]}
    small = types.SimpleNamespace(data={**res.data, "explore_grid": grid})
    values = _html_values(s3.explore_panel(small))
    images = [h for h in values if h.startswith("<img")]
    assert len(images) == 2
    # the panel is numbered and captioned like the figures, with the text's symbols
    assert any('<span class="caption-number">Explore panel 3.1.</span>' in h and "<i>l</i><sub>x</sub>" in h
               for h in values)
    assert all("condition number" in img for img in images)  # the alt text names what κ in the title is
    assert images[0].startswith('<img alt="3-PRP robot at lx = 200 mm, ly = 200 mm, theta = 0 deg; J = (262.6, 0.0, -463.6) mm')
    # its text is readable as the browser shows the SVG (natural size, at most the 672-px column): >= 9 px
    for img in images:
        width = int(re.search(r' width="(\d+)"', img).group(1))
        font = float(re.search(r'data-robolib-min-font-px="([\d.]+)"', img).group(1))
        assert width <= 672 and font * min(1, 672 / width) >= 9, (width, font)


def test_explore_figure_of_an_unreachable_input_keeps_its_message_readable():
    from matplotlib.text import Text

    fig = s3.explore_figure(prp3.load_geometry("prp3/paper.yaml"), 400.0, 400.0, 0.0)
    title = fig.axes[0].title
    assert title.get_color() == "red" and "unreachable" in title.get_text()
    fig.draw_without_rendering()
    assert min(t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()) >= 9
    assert title.get_window_extent().x1 <= fig.bbox.x1  # the two-line message fits the figure


# ---- claims against their criteria and independent expectations ---------------------------------------
def test_every_claim_holds_in_the_quick_run_and_the_ids_are_the_chapters(res):
    ids = [r["id"] for r in res.records()]
    assert ids == ["prp3_table_error", "prp3_n_default10", "prp3_rt_far", "prp3_rt_all", "prp3_z_up", "prp3_z_ambiguous",
                   "prp3_error_exponent", "prp3_error_raw_exponent", "prp3_error_prefactor", "prp3_n_modes",
                   "prp3_rules_ambiguous", "prp3_rules_fail", "prp3_volume", "prp3_volume_tail", "prp3_symmetry", "prp3_voxel_fine", "prp3_voxel_coarse", "prp3_voxel_none",
                   "prp3_ex3", "prp3_condition_singular"]
    assert res.failing() == []
    text = (ROOT / "notebooks" / f"{NAME}.md").read_text()
    cited = set(re.findall(r"\{glue:(?:md|text)\}`([^`]+)`", text))
    glued = set(ids) | set(res.values) | {f"{NAME}_run_time"}  # res.glue() glues the run time too
    assert cited <= glued, cited - glued


def test_condition_singular_claim_asks_the_worst_conditioned_inputs_to_lie_at_a_singularity():
    """``prp3_condition_singular`` holds when the largest condition numbers sit where a singularity measure is small
    and the small measures are rare; it fails when one of the worst-conditioned points lies away from both
    singularities, or when most of the map counts as singular (a criterion any point would meet)."""
    cond = np.arange(1.0, 201.0)
    far = np.full(200, 0.5)
    near = far.copy()
    near[-2:] = 0.01                                  # the two largest condition numbers: at an inverse singularity

    def claim(inverse, forward=far):
        reg = ClaimsRegister("t", glue=False)
        s3.register_condition_singular(reg, [(0.0, Singularity(forward, inverse, cond))])
        return reg.claims["prp3_condition_singular"]

    assert claim(near).holds
    moved = near.copy()
    moved[-1] = 0.5                                   # the worst point away from both singularities
    assert not claim(moved).holds
    assert not claim(near, forward=np.full(200, 0.01)).holds    # everything singular: not a finding


def test_ten_row_round_trip(res):
    ten = res.data["ten"]
    e_len, e_ang = claim_value(res, "prp3_table_error")
    assert e_len < s3.TOL_LEN and e_ang < s3.TOL_ANG
    assert e_len == pytest.approx(ten.slider_error.max()) and e_len > 0
    # independently: the IK of each point in each row's own mode gives the row back, another mode does not
    for q, p, m in zip(ten.q, ten.points, ten.modes):
        np.testing.assert_allclose(prp3.inverse(res.data["geometry"], p, mode=tuple(m)), q, atol=1e-9)
    n_default = claim_value(res, "prp3_n_default10")
    in_default = np.all(ten.modes == prp3.DEFAULT_MODE, axis=1)
    assert n_default == int(in_default.sum()) < s3.TABLE_ROWS
    # the claim's second half: solved in the default mode, exactly the default-mode rows come back
    geom = res.data["geometry"]
    for q, p, d in zip(ten.q, ten.points, in_default):
        back = np.array(prp3.inverse(geom, p, mode=prp3.DEFAULT_MODE, errors="mask"), dtype=float)
        assert bool(np.allclose(back, q, atol=1e-9)) == bool(d)


def test_large_round_trip_errors(res):
    rt = res.data["round_trip"]
    far_len, far_ang = claim_value(res, "prp3_rt_far")
    assert far_len < s3.TOL_LEN and far_ang < s3.TOL_ANG
    all_len, all_ang = claim_value(res, "prp3_rt_all")
    assert far_len <= all_len == rt.error[:, :2].max() < s3.ALL_SLIDER_TOL
    assert all_ang < s3.ALL_ANGLE_TOL, "the crank error over the whole sample is checked too"
    # near a boundary the slider error is bounded by a rounding of D over the distance (the error law)
    eps_l2 = np.finfo(float).eps * res.data["geometry"].l2 ** 2
    assert np.max(rt.error[:, :2] * rt.distance[:, :2]) < 100 * eps_l2
    assert int(res.values["prp3_rt_n"].replace(",", "")) == len(rt.q)


def test_root_heights_and_the_papers_z_rule(res):
    geom, rt = res.data["geometry"], res.data["round_trip"]
    n_up, n, n_mirror_up = claim_value(res, "prp3_z_up")
    assert n == len(rt.points) and n_up == int((rt.points[:, 2] >= 0).sum()) > 0
    assert n_mirror_up == n_up
    n_both, _ = claim_value(res, "prp3_z_ambiguous")
    assert 0 < n_both < n - n_up
    # the mirror root closes all three chains, is distinct, and is never below the kept root
    M = prp3.mirror_root(geom, rt.q[:, 0], rt.q[:, 1], rt.q[:, 2], points=rt.points)
    C = prp3.slider_points(geom, rt.q[:, 0], rt.q[:, 1], rt.q[:, 2])
    rods = np.linalg.norm(M[:, None, :] + geom.r * prp3.V - C, axis=-1)
    np.testing.assert_allclose(rods, geom.l2, rtol=1e-9)
    assert np.all(M[:, 2] >= rt.points[:, 2] - 1e-9)
    assert int(((M[:, 2] < 0) & (rt.points[:, 2] < 0)).sum()) == n_both


def test_error_law(res):
    law = res.data["error_law"]
    assert claim_value(res, "prp3_error_exponent") == law.exponent
    assert abs(law.exponent - s3.PREDICTED_EXPONENT) <= s3.EXPONENT_TOL
    assert law.exponent < claim_value(res, "prp3_error_raw_exponent") < s3.RAW_EXPONENT_MAX
    # the prefactor C = dD / 2 implies a rounding dD of D of a few eps*l2**2, within a 10-fold window
    pref = claim_value(res, "prp3_error_prefactor")
    assert s3.ROUNDINGS_MIN <= 2 * pref <= s3.ROUNDINGS_MAX and s3.ROUNDINGS_MAX / s3.ROUNDINGS_MIN <= 10
    assert pref == pytest.approx(10 ** law.log10_prefactor / (np.finfo(float).eps * res.data["geometry"].l2 ** 2))
    assert len(law.centres) >= 10 and law.fit_range[1] / law.fit_range[0] > 100
    # Fig 3.2's comparison line is the flat exponent 0 (no growth toward the boundary), through the fitted line's middle
    lines = {ln.get_label(): ln for ln in res.figures["errors"].axes[1].get_lines()}
    flat = lines["exponent 0: no growth (for comparison)"]
    xm = np.sqrt(law.fit_range[0] * law.fit_range[1])
    np.testing.assert_allclose(flat.get_ydata(), 10 ** law.log10_prefactor * xm ** law.exponent)
    assert not any("1/2" in label for label in lines)


def test_modes_and_the_papers_rules(res):
    rt = res.data["round_trip"]
    assert claim_value(res, "prp3_n_modes") == len(np.unique(rt.mode, axis=0)) == 8
    rules = res.data["rules"]
    assert claim_value(res, "prp3_rules_fail") == rules.all_hit < s3.RULES_ALL_HIT_MAX
    assert rules.all_hit <= min(rules.slider_hit, rules.crank_hit)
    assert claim_value(res, "prp3_rules_ambiguous") == rules.slider_ambiguous > 0
    assert rules.slider_hit + rules.slider_ambiguous <= 1.0 + 1e-12
    # independently: the home pose has two positive roots for slider 1 (the doctest of prp3.inverse)
    with pytest.raises(prp3.RuleAmbiguityError, match=names("slider lx", "two positive roots")):
        prp3.inverse(res.data["geometry"], prp3.forward(res.data["geometry"], *prp3.HOME_INPUT), mode="paper")
    # inverse(mode="paper") applies the same rules: it recovers the same share of the inputs
    assert res.data["paper_hit"] == pytest.approx(rules.all_hit, abs=2e-3)


def test_the_workspace_definition_the_lecture_states_is_the_hit_or_miss_test(res):
    """The lecture defines the default-mode workspace by three conditions: the IK of the default mode is real, its
    solution lies in the actuator box, and the FK of that solution gives the point back (to tau*l2). Coded from those
    words, the test is robolib's ``in_workspace``; without the third condition it counts more points."""
    import inspect

    geom = res.data["geometry"]
    tau = inspect.signature(prp3.in_workspace).parameters["tol"].default
    assert res.values["prp3_hm_tol"] == s3.power_text(tau) == "10⁻⁶"
    rng = np.random.default_rng(5)
    w = res.data["workspace"][prp3.DEFAULT_MODE]
    P = rng.uniform(w.extents[:, 0], w.extents[:, 1], size=(20_000, 3))
    q = np.stack(prp3.inverse(geom, P, mode=prp3.DEFAULT_MODE, errors="mask"), -1)   # real and in the box, or NaN
    lo, hi = geom.actuator_box.T
    real_in_box = np.isfinite(q).all(-1)
    assert np.all((q[real_in_box] >= lo) & (q[real_in_box] <= hi))
    back = prp3.forward(geom, *np.nan_to_num(q).T, errors="mask")
    with np.errstate(invalid="ignore"):
        fk_back = np.linalg.norm(back - P, axis=-1) <= tau * geom.l2
    mine = real_in_box & fk_back
    assert np.array_equal(mine, prp3.in_workspace(geom, P, prp3.DEFAULT_MODE))
    assert real_in_box.sum() > mine.sum() > 0  # the third condition matters: points above the plane of the centres


def test_workspace_volume_symmetry_and_voxels(res):
    v_jac, v_hm, se = claim_value(res, "prp3_volume")
    w0 = res.data["workspace"][prp3.DEFAULT_MODE]
    assert v_jac == w0.volume_jacobian / 1e6
    vol_hm, se_hm = res.data["volume_hit_or_miss"]
    assert (v_hm, se) == (vol_hm / 1e6, se_hm / 1e6)
    assert abs(v_jac - v_hm) < s3.N_SIGMA * se  # within 4 standard errors of hit-or-miss (the sound one)
    assert 15 < v_hm < 30  # dm³: the full chapter's estimates are near 22
    # the Jacobian integrand's tail: Hill index between 1 (the volume exists) and 4 (the sample standard error is not a
    # reliable uncertainty), computed from the same draw as the workspace; the prose reads it as a tail index
    alpha, top = claim_value(res, "prp3_volume_tail")
    ws = prp3.workspace_samples(res.data["geometry"], n=res.data["sizes"]["n_workspace"],
                                seed=res.data["seeds"]["workspace"])
    w = ws.det * (ws.mode == np.array(prp3.DEFAULT_MODE)).all(axis=-1)
    assert ws.volume(prp3.DEFAULT_MODE)[0] == pytest.approx(w0.volume_jacobian)
    # Table 3's workspace is what robolib.prp3.workspace computes from that draw (made once, kept sample by sample)
    ref = prp3.workspace(res.data["geometry"], n=res.data["sizes"]["n_workspace"], seed=res.data["seeds"]["workspace"],
                         voxel=s3.WORKSPACE_VOXEL)
    assert list(ref) == list(res.data["workspace"])
    for m, r in ref.items():
        mine = res.data["workspace"][m]
        assert np.array_equal(r.points, mine.points) and r.volume_voxels == mine.volume_voxels, m
        assert r.volume_jacobian == pytest.approx(mine.volume_jacobian, rel=1e-12) and r.fraction == mine.fraction, m
    assert alpha == s3.tail_index(w, s3.TAIL_K) and s3.TAIL_INDEX_MIN < alpha < s3.TAIL_INDEX_MAX
    assert (s3.TAIL_INDEX_MIN, s3.TAIL_INDEX_MAX) == (1.0, 4.0)
    assert res["prp3_volume_tail"].text == f"a tail index of {alpha:.2f}"  # the prose, not the text, says "between 1 and 4"
    assert res["prp3_n_modes"].text == "all 8"
    assert top == pytest.approx(w.max() / w.sum()) and 0 < top < 0.1
    sym, y_lo, y_hi = claim_value(res, "prp3_symmetry")
    assert sym < s3.SYMMETRY_TOL and y_lo == pytest.approx(-y_hi, rel=0.05)
    fine, spv, growth = claim_value(res, "prp3_voxel_fine")
    assert fine * 1e6 == prp3.voxel_volume(w0.points, 5.0) and fine < v_hm
    assert spv == pytest.approx(len(w0.points) * 5.0 ** 3 / vol_hm) and spv < s3.FINE_SPV_MAX
    assert growth > s3.FINE_GROWTH_MIN
    coarse, v = claim_value(res, "prp3_voxel_coarse")
    assert v == v_hm and coarse * 1e6 > vol_hm + s3.N_SIGMA * se_hm
    assert res.values["prp3_default_share"] == f"{w0.fraction:.0%}"
    verdicts = claim_value(res, "prp3_voxel_none")
    assert list(verdicts) == [f"{v:g}" for v in s3.VOXELS]
    assert verdicts["40"][0] and verdicts["5"][1]  # the coarse count overstates, the fine one still grows
    for v in s3.VOXELS:
        vol = res.data["voxels"][v]
        assert verdicts[f"{v:g}"] == [vol[-1] > vol_hm + s3.N_SIGMA * se_hm,
                                      vol[-1] / vol[-2] - 1 > s3.FINE_GROWTH_MIN]


def test_exercises(res):
    geom = res.data["geometry"]
    assert (res.data["exercise_1"]["real"], res.data["exercise_1"]["inside"]) == (8, 4)
    lx = res.data["exercise_2"]["lx"]
    # chain 1 is on its mode boundary there: the discriminant vanishes, and slider 1's mode flips across it
    J = prp3.forward(geom, lx, 200.0, 0.0)
    assert abs(lx - (J + geom.r * prp3.U1) @ prp3.U1) < 1e-6  # lx = b_1: the two roots of slider 1 meet
    assert prp3.working_mode(geom, lx - 1.0, 200.0, 0.0)[0] != prp3.working_mode(geom, lx + 1.0, 200.0, 0.0)[0]
    # exercise 3: both routes with 10^4 samples from the chapter's seed agree within N_SIGMA hit-or-miss errors
    v_hm, se_hm, v_jac = claim_value(res, "prp3_ex3")
    ex3 = res.data["exercise_3"]
    assert (v_hm, se_hm, v_jac) == (ex3["v_hm"] / 1e6, ex3["se_hm"] / 1e6, ex3["v_jac"] / 1e6)
    assert abs(v_jac - v_hm) < s3.N_SIGMA * se_hm and 0 < se_hm / v_hm < 0.1
    assert ex3 == s3.exercise_3(geom, res.params["seed"])  # drawn from the chapter's seed, as the solution draws it
    assert res.values["prp3_ex3_hm"] == f"{v_hm:.2f} ± {se_hm:.2f} dm³"


def test_the_exercise_solutions_print_the_study_s_answers(res):
    """Each solution is visible library code (run as the notebook runs it); it prints the study's counts, mode
    boundary and the two volume routes' estimates (the same draws: the text quotes what the code prints)."""
    ex1, ex2, ex3 = solution_outputs(NAME)
    real, inside = (int(x) for x in re.search(r"real solutions: (\d+), inside the actuator ranges: (\d+)", ex1).groups())
    assert (real, inside) == (res.data["exercise_1"]["real"], res.data["exercise_1"]["inside"])
    # the modes the solution's text names are those the code prints inside (outside) the actuator ranges
    printed = {where: [ln.partition(" [")[0] for ln in ex1.splitlines()[1:] if ln.endswith(" " + where)]
               for where in ("inside", "outside")}
    assert printed["inside"] == res.data["exercise_1"]["modes_inside"] and len(printed["inside"]) == inside
    assert printed["outside"] == res.data["exercise_1"]["modes_outside"]
    assert float(re.search(r"lx = (\S+) mm", ex2).group(1)) == pytest.approx(res.data["exercise_2"]["lx"], abs=1e-5)
    assert ex3 == res.data["exercise_3"]["report"] + "\n"
    for key in ("prp3_ex3_hm", "prp3_ex3_jac"):  # the glued numbers of the solution's text are in the printout
        assert res.values[key] in ex3
    assert res["prp3_ex3"].text.partition(" ")[0] in ex3.splitlines()[-1]


# ---- other parameters: values that must move, a claim that must fail ------------------------------------
def test_another_seed_moves_the_sampled_values_not_the_findings(res, quick_study):
    other = quick_study(NAME, seed=3)
    assert other.failing() == []
    assert claim_value(other, "prp3_volume") != claim_value(res, "prp3_volume")
    assert claim_value(other, "prp3_z_up")[0] != claim_value(res, "prp3_z_up")[0]
    assert not np.array_equal(other.data["ten"].q, res.data["ten"].q)
    # deterministic: exercises 1 and 2 do not depend on the seed
    assert other.values["prp3_ex2_lx"] == res.values["prp3_ex2_lx"]


def test_a_small_workspace_sample_breaks_the_coarse_voxel_claim(res, quick_study):
    small = quick_study(NAME, n_workspace=2_000)
    assert small.failing() == ["prp3_voxel_coarse"]
    coarse, v_hm = claim_value(small, "prp3_voxel_coarse")
    assert coarse < v_hm  # 40-mm voxels no longer cover the region
    # undersampled 5-mm voxels: the count is about proportional to the number of samples
    ratio = claim_value(small, "prp3_voxel_fine")[0] / claim_value(res, "prp3_voxel_fine")[0]
    n_small = len(small.data["workspace"][prp3.DEFAULT_MODE].points)
    n_res = len(res.data["workspace"][prp3.DEFAULT_MODE].points)
    assert ratio == pytest.approx(n_small / n_res, rel=0.1)
    # the round trip does not use n_workspace
    assert claim_value(small, "prp3_rt_all") == claim_value(res, "prp3_rt_all")


# ---- the Models page states the code's constants ---------------------------------------------------------
def _book_ext():
    spec = importlib.util.spec_from_file_location("robolib_book", ROOT / "book" / "_ext" / "robolib_book.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_models_page_constants_come_from_the_code():
    page = (ROOT / "book" / "models" / "prp3.md").read_text()
    targets = re.findall(r"\{robolib-value\}`([^`]+)`", page)
    assert len(targets) >= 6
    ext = _book_ext()
    values = {t: ext.code_value(t) for t in targets}  # every cited constant exists
    assert values["robolib.prp3.kinematics.DEFAULT_MODE"] == "-1, -1, 1"
    assert values["robolib.prp3.sampling.HIT_OR_MISS_PAD:.0%"] == "5%"
    assert tuple(prp3.working_mode(prp3.Geometry(), *prp3.HOME_INPUT)) == prp3.DEFAULT_MODE


def test_models_page_numbers_match_the_geometry_file_and_the_study():
    page = (ROOT / "book" / "models" / "prp3.md").read_text()
    g = prp3.load_geometry("prp3/paper.yaml")
    stated = re.search(r"\$l_0 = ([\d.]+)\$, \$l_1 = ([\d.]+)\$, \$l_2 = ([\d.]+)\$, \$r = ([\d.]+)\$,\s*\$h = ([\d.]+)\$ mm", page)
    assert tuple(float(v) for v in stated.groups()) == (g.l0, g.l1, g.l2, g.r, g.h)
    lo, hi = re.search(r"\$(\d+) \\le l_x, l_y \\le (\d+)\$ mm", page).groups()
    assert (float(lo), float(hi)) == g.lx_range == g.ly_range
    lo, hi = re.search(r"closed interval\s*\$\[(-?\d+)°, (\d+)°\]\$", page).groups()
    assert np.radians([float(lo), float(hi)]) == pytest.approx(g.theta_range)
    n = re.search(r"round trip on \$10\^(\d)\$ inputs \(the chapter's parameter\s*`n_samples`\)", page).group(1)
    assert study.defaults(NAME)["n_samples"] == 10 ** int(n)


def test_the_live_explore_panel_spans_the_actuator_travel_not_the_precomputed_grid(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    from robolib.prp3 import load_geometry
    from robolib.studies.prp3_roundtrip.study import EXPLORE_GRID_QUICK, explore_panel

    geom = load_geometry("prp3/paper.yaml")
    monkeypatch.setenv("JPY_SESSION_NAME", "chapter")      # as in a kernel JupyterLab started: the live panel
    box = explore_panel(SimpleNamespace(data={"geometry": geom, "explore_grid": EXPLORE_GRID_QUICK}))
    spans = {s.description: (s.min, s.max) for s in box.children[1:4]}
    assert spans == {"lx [mm]": tuple(geom.lx_range), "ly [mm]": tuple(geom.ly_range), "θ [deg]": (-90.0, 90.0)}



# ---- the lecture and its evidence page -------------------------------------------------------------------
def test_the_lecture_shows_three_tables_and_the_evidence_page_the_checks(res):
    text = (ROOT / "notebooks" / f"{NAME}.md").read_text()
    # the dimensions, the paper's ten inputs and the working modes; the workspace of each mode is Table S3
    assert re.findall(r'res\.table\("(\w+)"\)', text) == ["key_parameters", "table1", "table2"]
    assert not set(s3.EVIDENCE_TABLES) & set(re.findall(r'res\.table\("(\w+)"\)', text))
    assert "res.data[\"reports\"]" not in text  # the run's reports are on the evidence page
    assert text.count("{doc}`evidence page </evidence/prp3_roundtrip>`") >= 3
    assert "Every finding is a registered claim" not in text
    # the lecture starts with the question and the model; the run follows (the model's figure and table are glued)
    assert text.index("## The model") < text.index("## The chapter's run") < text.index("## The paper's experiment")
    assert "```{glue:figure} prp3_mechanism" in text and 'glue("prp3_mechanism", res.figure("mechanism")' in text
    assert "A ✓ marks a result checked in this run ({ref}`how claims work <findings-computed>`)." in text
    # one lecture: the volume estimators (the workspace as equations, hit-or-miss, the Jacobian integral, which
    # standard error to trust, voxel counts) are on the evidence page; the lecture keeps the figure and the number
    page = (ROOT / "book" / "evidence" / f"{NAME}.md").read_text()
    for label in ("eq-prp3-8", "eq-prp3-9", "eq-prp3-10"):
        assert label not in text and f"$$ ({label})" in page, label
    assert "{glue:md}`prp3_volume`" in text and "{glue:md}`prp3_symmetry`" in page
    assert "prp3_voxel" not in text and ":class: dropdown\n*The default-mode workspace" not in text
    # no universal words from a sample; the Explore panel asks only what its grid can show
    assert "always keeps" not in text and "{glue:text}`prp3_rt_n` reachable inputs" in text
    # the rule "below the plane of the centres" keeps a root by construction (Eq. 3.4): said as a property, not a finding
    assert "by construction, not as a finding" in text and "prp3_rt_n" not in text.split("## What this chapter found")[1]
    assert "too coarse to locate a mode boundary" in text and "{glue:text}`prp3_explore_step`" in text
    # the summary stays the last cell, removed from the page (its claims table is on the evidence page)
    last = text.rstrip().rpartition("```{code-cell} ipython3")[2]
    assert ":tags: [remove-cell]" in last and "res.summary()" in last
    # the evidence page shows exactly what the chapter glues for it
    ev = s3.evidence(res)
    assert set(ev["tables"]) == {*s3.EVIDENCE_TABLES, "parameters", "criteria"} <= set(res.tables)
    assert set(ev["markdown"]) == {"round_trip", "error_law", "volume"}
    assert all(m.startswith("```text\n") and m.endswith("\n```") for m in ev["markdown"].values())
    page = (ROOT / "book" / "evidence" / f"{NAME}.md").read_text()
    assert set(re.findall(r"\{glue:md\} prp3_ev_(\w+)", page)) == {*ev["tables"], *ev["markdown"], "claims"}
    assert 'glue_evidence(prefix="prp3", **prp3_roundtrip.study.evidence(res))' in text


def test_the_figures_fit_the_column_with_readable_text(res):
    """Each figure as the chapter shows it (``res.figure``: 100 dpi, tight box) fits the 672-px column, its text >= 9 px."""
    import struct

    from robolib.book.notebook import smallest_font_px

    for name, fig in res.figures.items():
        assert fig.get_size_inches()[0] <= 6.7, name
        png = res.figure(name).data
        width = struct.unpack(">I", png[16:20])[0]  # the IHDR chunk
        assert width <= 672, (name, width)
        assert smallest_font_px(fig, 100) * min(1, 672 / width) >= 9, name


def test_glued_texts_read_as_prose(res):
    """Numbers glued into the running text are written as a reader writes them (no ``9.4e-11``), counts agree with
    their verb, and no claim text opens a parenthesis that a sentence around it would nest."""
    prose = ["prp3_table_error", "prp3_rt_far", "prp3_rt_all", "prp3_z_up", "prp3_z_ambiguous", "prp3_error_exponent",
             "prp3_error_prefactor", "prp3_symmetry", "prp3_voxel_none"]
    for cid in prose:
        assert not re.search(r"\de[-+]\d", res[cid].text), (cid, res[cid].text)
        assert "eps" not in res[cid].text and "l2" not in res[cid].text
    for cid in ("prp3_rt_all", "prp3_error_exponent"):  # cited inside parentheses or after "is"
        assert "(" not in res[cid].text
    n = int(res.values["prp3_n_flag10"])
    assert res.values["prp3_flag10_text"] == s3.count_phrase(n, "ten")
    assert res.values["prp3_flag10_text"].endswith(" is" if n <= 1 else " are")
    assert s3.sci_text(9.4e-11) == "9.4 × 10⁻¹¹" and s3.far_text() == "1 mm for a slider and 10⁻³ rad for the crank"
