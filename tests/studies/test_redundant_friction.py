"""The friction study of the redundant robot (robolib.studies.redundant_friction.study): results, claims, parameters.

Quick runs only (``quick_study`` of conftest.py, cached per session): the default quick
run, three runs that change one parameter and check that the claims that must move do, and
one whose uncompensated consistent-Coulomb simulation stops (a finding of the run). Every
declared parameter refuses its invalid values before any work.
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import numpy as np
import pytest
from fuzzing import names
from matplotlib.figure import Figure

from conftest import PROMPT_CPU_S, refusal, solution_outputs
from robolib import ParameterError, study
from robolib import redundant as R
from robolib.studies.redundant_friction import study as sf

ROOT = Path(__file__).resolve().parents[2]
NAME = "redundant_friction"
#: Every claim of the chapter, in the order of the text.
CLAIM_IDS = [
    "rf_cal_tc", "rf_cal_rms", "rf_wmax", "rf_energy_ratio", "rf_energy_cal", "rf_peak_ratio", "rf_energy_fast", "rf_energy_fast_coulomb",
    "rf_energy_fast_share",
    "rf_speed_marked", "rf_speed_fast", "rf_speed_slow", "rf_speed_slope", "rf_speed_stribeck", "rf_speed_dev_coulomb", "rf_speed_dev_stribeck",
    "rf_slow_share", "rf_slow_ref_share", "rf_slow_level", "rf_payload_coulomb",
    "rf_payload_marked", "rf_payload_dev", "rf_preload_coulomb", "rf_preload_dev",
    "rf_preload_growth", "rf_preload_dev_sign", "rf_dec_ref", "rf_dec_est", "rf_dec_bound", "rf_dec_1pct", "rf_dec_speed", "rf_dec_preload",
    "rf_dec_mu", "rf_preload_best", "rf_preload_large", "rf_geared_level", "rf_geared_free", "rf_geared_breakaway", "rf_geared_covered",
    "rf_geared_stribeck_dev", "rf_geared_coulomb_dev", "rf_geared_dec_sim", "rf_own_coulomb", "rf_own_stribeck",
    "rf_own_decoupled", "rf_balance", "rf_power", "rf_geared_energy", "rf_ex1_agree", "rf_ex2_preload", "rf_ex2_ratio", "rf_eps_covered", "rf_eps_change",
    "rf_eps_converges",
]


@pytest.fixture
def res(quick_study):
    return quick_study(NAME)


def value(res, cid):
    return res[cid].value


# ---- the run as a whole -----------------------------------------------------------------------------
def test_quick_run_registers_every_claim_and_all_hold(res):
    assert [r["id"] for r in res.records()] == CLAIM_IDS
    assert res.failing() == []
    assert all(r["study"] == NAME and r["source"] == "000" for r in res.records())
    assert {r["answers"] for r in res.records()} >= {"000.c3", "000.c4"}




def test_tables_figures_and_values(res):
    assert set(res.figures) == {"laws", "waveforms", "sweep_speed", "sweep_speed_all", "slow", "sweep_payload",
                                "sweep_preload", "decoupling", "preload", "paths", "energy_geared"}
    from matplotlib._pylab_helpers import Gcf

    from robolib.studies.redundant_friction.figures import explore_draw

    for name, fig in res.figures.items():
        assert isinstance(fig, Figure) and fig.axes, name
    assert len(res.figures["sweep_speed"].axes) == 2 and len(res.figures["sweep_speed_all"].axes) == 3
    managed = {id(m.canvas.figure) for m in Gcf.get_all_fig_managers()}
    assert not managed & {id(f) for f in res.figures.values()}, "figures made without pyplot"
    panel = explore_draw(res.data["robot"], 2.0, 0.2, 0.0)
    assert isinstance(panel, Figure) and "RMS over the three joints: Coulomb" in panel.axes[0].get_title()
    # the lecture shows a short table of key parameters; every parameter is on the evidence page (Table S3)
    key = res.tables["parameters"]
    # in words and symbols, no code names or raw underscores outside maths (they are in the full table, Table S3)
    assert "<details" not in key and key.count("\n| ") == 1 + 6 and "`" not in key
    assert r"| bearing friction $\mu$, journal radius $R$ | 0.1, 10 mm |" in key and "0.311 mN m" in key
    assert not re.search(r"_", re.sub(r"\$[^$]*\$", "", key)), key
    assert key.startswith("**The robot and its friction laws in this run**") and "geared" not in key
    assert list(sf.EVIDENCE_TABLES) == ["calibration", "own_torques", "all_parameters", "criteria"]
    for k, name in enumerate(sf.EVIDENCE_TABLES):
        assert res.tables[name].startswith(f"**Table S{k + 1}** — ")
    table = res.tables["all_parameters"]
    assert "unit / meaning" in table and "notebook parameter" not in table
    assert f"| `mu` | None | {sf.PARAMETERS['mu'].note()} |" in table
    assert "| `t_sim` | 4 | s: length of the geared-joint simulations" in table and "(valid: a number > 0 s)" in table
    assert "consistent-Coulomb contraction factor" in table
    assert "3.112e-4" in table or "0.0003112" in table                     # the data file's T_c is listed
    assert "DIFF" in res.tables["criteria"] and "DIFF" not in table        # criterion constants beside the claims
    assert "T_c of equal energy per period" in res.tables["calibration"]
    assert res.tables["own_torques"].count("\n| ") == 1 + 6                # header + 2 sets x 3 models
    assert res.values["rf_radius"] == "0.05" and res.values["rf_period"] == "2"


def test_the_lecture_s_table_1_gives_each_law_s_response_to_the_operating_point(res):
    """Table 1: each law's RMS friction torque at the ends of the sweeps, relative to the sweep's reference point."""
    assert res.tables["operating_points"].startswith("**Table 2.1** — ")
    rows = {r[0]: r[1:] for r in res.data["operating_points"]}
    assert list(rows)[0].startswith("reference circle") and list(rows.values())[0][:2] == (1.0, 1.0)
    assert list(rows.values())[0][2] == pytest.approx(value(res, "rf_cal_rms"))     # the calibration: equal RMS
    assert set(rows) == {list(rows)[0], "faster circle: period 1 s", "slower circle: period 8 s", "payload 0 kg",
                         "payload 1.6 kg", "preload -0.3 N m", "preload +0.3 N m", "preload +3 N m"}
    assert rows["faster circle: period 1 s"][0] == pytest.approx(4.0, rel=0.05)       # inertial loads ~ (2 pi / T)^2
    assert rows["slower circle: period 8 s"][2] == pytest.approx(value(res, "rf_speed_slow"))
    for label in ("payload 0 kg", "payload 1.6 kg", "preload -0.3 N m", "preload +0.3 N m", "preload +3 N m"):
        assert rows[label][1] == pytest.approx(1.0, abs=1e-9), label                  # Stribeck: rates only
    assert rows["preload +0.3 N m"][0] == pytest.approx(value(res, "rf_preload_coulomb"))
    assert rows["preload +3 N m"][0] == pytest.approx(value(res, "rf_preload_large"))
    assert rows["payload 1.6 kg"][0] > 1 + sf.DIFF
    # the cells that hold by definition say so; the findings are plain numbers
    table = res.tables["operating_points"]
    assert table.count("(rates unchanged)") == 5 and table.count("1 (reference)") == 2
    assert table.count("(calibrated)") == 1
    assert all("(" not in line for line in table.splitlines() if "er circle: period" in line)   # faster, slower: findings


def test_criteria_say_in_words_what_is_compared(res):
    """A reader meets the criteria in the claims tables: no glue keys, constant names or function names in them."""
    for r in res.records():
        assert not re.search(r"\brf_|[A-Z]{2,}_[A-Z]|redundant\.", r["criterion"]), (r["id"], r["criterion"])
    criteria = res.tables["criteria"]
    assert "DIFF" in criteria and not re.search(r"\brf_", criteria)                # constants named, claims in words


def test_claim_texts_are_written_for_a_reader(res):
    """The glued texts say what the criteria say, in units and words a reader reads (no 1e-09 or 0e+00)."""
    for r in res.records():
        assert not re.search(r"\d[eE][+-]\d", r["text"]), (r["id"], r["text"])
    share = value(res, "rf_energy_fast_share")
    assert res["rf_energy_fast_share"].text == f"{share:.0%}" and ("more than the whole difference" in
                                                                 res.values["rf_energy_fast_note"]) == (share > 1)
    assert res["rf_speed_stribeck"].text.startswith(f"by less than {(sf.SPEED_FLAT - 1) * 100:.0f} %: its largest value is ")
    assert res["rf_speed_dev_coulomb"].text.startswith(f"by less than {(sf.DEV_FLAT - 1) * 100:.0f} %: its largest value is ")
    assert res["rf_dec_ref"].text == f"{value(res, 'rf_dec_ref') * 100:.2f} %" and f"within {sf.DEC_LIMIT:.0%} of" in res["rf_dec_ref"].statement
    assert res["rf_geared_free"].text.endswith(" nm") and res["rf_balance"].text.endswith(" µJ")
    assert sf._length(2.9e-6) == "2.9 µm" and sf._length(5.29e-4) == "0.53 mm" and sf._length(0.0953) == "95 mm"


def test_the_lecture_leaves_the_geared_experiment_and_the_sweeps_to_the_evidence_page():
    """The 90-minute main line: the geared-joint figure, the payload/preload sweeps and the uncompensated deviation of
    the speed sweep are glued for the evidence page; the lecture's speed figure has the torque and energy panels only."""
    nb = (ROOT / "notebooks" / f"{NAME}.md").read_text()
    ev = (ROOT / "book" / "evidence" / f"{NAME}.md").read_text()
    assert 'res.figure("paths")' not in nb and 'res.figure("sweep_payload")' not in nb
    assert 'figures=["sweep_speed_all", "sweep_payload", "sweep_preload", "preload", "paths", "energy_geared",\n' in nb
    assert 'res.figure("decoupling")' not in nb and '"decoupling"])' in nb      # the decoupling map, too
    for name in ("sweep_speed_all", "sweep_payload", "sweep_preload", "preload", "paths", "energy_geared", "decoupling"):
        assert f"```{{glue:figure}} rf_ev_{name}" in ev, name
    assert "For the reader and the teacher" in nb and "base point $O_i$" in nb and "harmless" not in nb
    assert "rf_speed_dev" not in nb and "{glue:md}`rf_speed_dev_coulomb`" in ev and "{glue:md}`rf_speed_dev_stribeck`" in ev
    # the "why" of the energy finding: its conclusion in the lecture, the sample-by-sample accounting on the evidence page
    assert "fast parts of the motion" in nb.split("## What this chapter found")[1] and "rf_energy_fast_share" not in nb
    assert "{glue:md}`rf_energy_fast_share`" in ev and "{glue:text}`rf_energy_fast_note`" in ev
    # one line of argument: the three friction models named once, in a list the page refers to; the estimate's
    # steps folded for reference; the iteration's convergence said with the run's contraction factor, not asserted
    assert "| **consistent Coulomb** (`\"coulomb_consistent\"`) |" in nb and "| **decoupled Coulomb**, the patent's (`\"coulomb\"`) |" in nb
    assert "| **Stribeck** (`\"stribeck\"`) |" in nb
    assert ":::{dropdown} For reference: the estimate step by step" in nb and "{glue:text}`rf_contraction`" in nb
    assert "also lets the consistent model's iteration converge" not in nb
    assert ":tags: [parameters, hide-input]" in nb
    # what the calibration imposes is said, and not tested as a finding: its two checks are method claims
    assert "**What the calibration imposes.**" in nb
    assert "{glue:md}`rf_cal_rms`" not in nb and "{glue:md}`rf_cal_rms`" in ev
    # the payload and preload rows explained in the main line (the findings quote them); exercise 2 says what its
    # preload means; exercise 3's words no stronger than its criterion
    assert "The payload and preload rows of Table 2.1 change" in nb and "payload and preload rows of Table 2.1\n" not in nb
    # ... compared with the largest motor torque the chapter computes, not with motors it has no data on
    assert "{glue:text}`rf_tau_max_free`" in nb and "more than a hundred times the torques" in nb
    assert "beyond anything" not in nb and "dominates" not in nb and "hundreds" not in nb
    # the lecture starts with the question and the mechanism; the run follows; the ✓ is explained in the reader box
    assert nb.index("## The robot on its circle") < nb.index("## The chapter's run") < nb.index("## The two laws")
    assert "A ✓ marks a result checked in this run ({ref}`how claims work <findings-computed>`)." in nb
    assert "the result converges" not in nb and "the changes shrink as $\\varepsilon$ decreases" in nb


def test_every_glued_key_of_the_lecture_and_the_evidence_page_is_made_by_the_run(res):
    import re

    nb = (ROOT / "notebooks" / f"{NAME}.md").read_text()
    ev = (ROOT / "book" / "evidence" / f"{NAME}.md").read_text()
    for key in re.findall(r"\{glue:(?:md|text)\}`(\w+)`", nb + ev):
        assert key in CLAIM_IDS or key in res.values or key == f"{NAME}_run_time", key
    # the consistent-Coulomb iteration contracts on this run: the factor the lecture quotes is below 1
    assert 0 < float(res.values["rf_contraction"]) < 1


def test_the_animation_and_the_explore_panel_are_numbered(res):
    from robolib.studies.redundant_friction.figures import explore_panel, motion_animation

    assert '<span class="caption-number">Animation 2.1.</span>' in motion_animation(res).data
    panel = explore_panel(res)
    assert '<span class="caption-number">Explore panel 2.1.</span>' in panel.children[-1].value
    assert res.values["rf_t_sim"] == "1"                                     # a quick run simulates 1 s


def test_the_calibration_checks_are_method_claims_not_findings(res):
    assert {"rf_cal_tc", "rf_cal_rms"} <= res.claims.methods
    assert res["rf_cal_rms"].answers is None and res["rf_cal_rms"].holds
    found = res.claims.table_markdown().partition("Checks of the run's method")
    assert "rf_cal_rms" not in found[0] and "true by construction" in found[2]
    assert "rf_energy_ratio" not in res.claims.methods                        # the energy at equal RMS is a finding


# ---- the two laws at equal level ------------------------------------------------------------------------
def test_calibration_is_exact_and_matches_the_file(res):
    d = res.data
    assert value(res, "rf_cal_rms") == pytest.approx(1.0, abs=1e-9)        # closed-form root: equal RMS exactly
    assert value(res, "rf_cal_tc") == pytest.approx(3.112e-4, rel=sf.CAL_FILE_TOL)
    # independently: the RMS of both friction torques from fresh inverse dynamics
    t = np.linspace(0.0, R.CIRCLE_PERIOD, 400, endpoint=False)
    q, dq, ddq = R.reference_motion(d["robot"], t)
    rc = R.rms(R.inverse_dynamics(d["robot"], q, dq, ddq, "coulomb_consistent").friction_torque)
    rs = R.rms(R.inverse_dynamics(d["robot"], q, dq, ddq, "stribeck").friction_torque)
    assert rs == pytest.approx(rc, rel=1e-9) and d["robot"].coulomb_torque == pytest.approx(value(res, "rf_cal_tc"))


def test_energy_and_torque_levels(res):
    d = res.data
    ratio = value(res, "rf_energy_ratio")
    assert 1 + sf.DIFF < ratio < 1.6
    # the cumulative energies of the figure end at the energies of the claim
    e = d["e_cum"]
    assert e["stribeck"][-1] / e["coulomb_consistent"][-1] == pytest.approx(ratio, rel=1e-9)
    assert np.all(np.diff(e["stribeck"]) >= 0) and np.all(np.diff(e["coulomb_consistent"]) >= 0)
    # fast motion: tanh(w/eps) = 1 and the Stribeck hump exp(-(w/w_s)^2) <= e^-9, so |tau_S| = T_c to 1e-4
    assert value(res, "rf_energy_fast") == pytest.approx(1.0, abs=1e-4)
    assert 0.6 < value(res, "rf_energy_fast_coulomb") < 1 - sf.DIFF
    # the reason for the energy ratio: the fast samples' share of E_S - E_C, recomputed from the waveforms
    fast = np.abs(d["w_id"]) > sf.FAST_RATE * d["robot"].stribeck_velocity
    dE = -(d["ids"]["Stribeck"].friction_torque - d["ids"]["Coulomb consistent"].friction_torque) * d["w_id"]
    assert value(res, "rf_energy_fast_share") == pytest.approx(dE[fast].sum() / dE.sum(), rel=1e-9)
    assert value(res, "rf_energy_fast_share") > 0.5 and dE.sum() > 0
    assert abs(value(res, "rf_peak_ratio") - 1) < sf.DIFF
    assert value(res, "rf_wmax") == pytest.approx(float(np.abs(d["w_id"]).max())) and value(res, "rf_wmax") > 0.1
    assert d["reversals"].tolist() == [2, 2, 2]                                 # "reverses twice per period"
    # the equal-energy level: E_S = E_C there; with b_v = 0, T_c(E) / T_c = E_C / E_S = 1 / rf_energy_ratio
    assert d["robot"].viscous == 0 and value(res, "rf_energy_cal") == pytest.approx(1 / ratio, rel=1e-9)
    robot_E = dataclasses.replace(d["robot"], coulomb_torque=d["energy"]["tc_equal_energy"],
                                  static_torque=d["energy"]["tc_equal_energy"] * d["static_ratio"])
    tf = R.inverse_dynamics(robot_E, d["q_id"], d["dq_id"], d["ddq_id"], "stribeck").friction_torque
    E = float(-np.sum(tf * d["w_id"]) * R.CIRCLE_PERIOD / len(d["t_id"]))
    assert E == pytest.approx(d["energy"]["coulomb_consistent"], rel=1e-9)


# ---- where the laws part ------------------------------------------------------------------------------------
def test_speed_sweep(res):
    periods, sw, _ = res.data["sweeps"]["period"]
    c, s = sw["coulomb_consistent"]["friction_rms"], sw["stribeck"]["friction_rms"]
    assert periods == [1.0, 2.0, 8.0]
    assert c[0] / c[1] == pytest.approx(4.0, rel=0.05)                       # inertial loads ~ (2 pi / T)^2
    assert value(res, "rf_speed_slope") == pytest.approx(-2.0, abs=0.1)
    assert value(res, "rf_speed_stribeck") == pytest.approx(s.max() / s.min()) and value(res, "rf_speed_stribeck") < 1.25
    assert value(res, "rf_speed_fast") == pytest.approx(c[0] / s[0]) and value(res, "rf_speed_fast") > 1 + sf.DIFF
    assert value(res, "rf_speed_slow") == pytest.approx(s[-1] / c[-1]) and value(res, "rf_speed_slow") > 10
    assert value(res, "rf_speed_slow") == pytest.approx(max(s / c))            # the largest ratio of the sweep
    assert value(res, "rf_speed_marked") == 2                                 # all but the calibration period
    assert value(res, "rf_speed_dev_coulomb") < 1.05 and value(res, "rf_speed_dev_stribeck") > 10


def test_slow_payload_and_preload(res):
    assert 0.4 < value(res, "rf_slow_share") < 0.7 and value(res, "rf_slow_ref_share") < 0.25
    assert 1.0 < value(res, "rf_slow_level") < 1.5                           # between T_c and T_s = 1.5 T_c
    # the Stribeck torque does not depend on the load (a property of the model, stated without a claim): the
    # payload and preload sweeps leave it unchanged to round-off
    for name in ("end_effector_mass", "preload"):
        rms_S = res.data["sweeps"][name][1]["stribeck"]["friction_rms"]
        assert np.ptp(rms_S) / rms_S.mean() < 1e-9, name
    assert not any(r["id"] in ("rf_payload_stribeck", "rf_preload_stribeck") for r in res.records())
    assert value(res, "rf_payload_coulomb") > 1 + sf.DIFF and value(res, "rf_preload_coulomb") > 1 + sf.DIFF
    coulomb, stribeck = value(res, "rf_payload_dev")
    assert 0 < stribeck < coulomb < 1
    plus, minus = value(res, "rf_preload_dev"), value(res, "rf_preload_dev_sign")
    assert min(plus) > 2 and minus[1] < 1                                  # -p shrinks the Stribeck deviation


def test_decoupling(res):
    robot, d = res.data["robot"], res.data
    err, est = value(res, "rf_dec_ref"), value(res, "rf_dec_est")
    assert 0 < err <= est < sf.DEC_LIMIT
    # the bound mu R max ||dF/dtau|| from the preload reactions, independently
    t = np.linspace(0.0, R.CIRCLE_PERIOD, 400, endpoint=False)
    q, _, _ = R.reference_motion(robot, t)
    sens = np.linalg.norm(R.preload_reactions(robot, q).reshape(len(t), 6), axis=-1).max()
    assert est == pytest.approx(robot.mu * robot.journal_radius * sens, rel=1e-12)
    errs = d["dec_maps"]["preload"][0]
    assert np.all(np.diff(errs, axis=0) > 0)                                 # grows with mu R at every preload
    assert robot.mu * robot.journal_radius < value(res, "rf_dec_1pct") < 0.01
    assert value(res, "rf_dec_mu") > 10 * value(res, "rf_dec_preload") > 10
    assert value(res, "rf_dec_speed") < 1.05


def test_large_preload(res):
    lp = res.data["large_preload"]
    assert len(lp["p"]) == 7 and res.data["large_preload_fit"]["points"] >= 3
    assert value(res, "rf_preload_large") == pytest.approx(lp["tf_rms"][-1] / lp["tf_rms"][3])
    assert value(res, "rf_preload_large") > 10 and abs(value(res, "rf_preload_best")) < 0.1
    # the V: friction and bearing loads grow with |p| on both sides
    assert lp["tf_rms"][0] > lp["tf_rms"][3] < lp["tf_rms"][-1]
    assert lp["F_mean"][0] > lp["F_mean"][3] < lp["F_mean"][-1]


# ---- uncompensated and compensated geared joints, energy -----------------------------------------------------
def test_geared_experiment(res):
    d = res.data
    geared = d["geared"]
    t = d["t_id"]
    tau = R.inverse_dynamics(geared, d["q_id"], d["dq_id"], d["ddq_id"]).tau
    assert value(res, "rf_geared_breakaway") == pytest.approx(np.abs(tau).max(), rel=1e-12)
    assert value(res, "rf_geared_breakaway") < geared.static_torque
    assert len(t) == 400
    assert value(res, "rf_geared_covered") < 0.5 and value(res, "rf_geared_stribeck_dev") > R.CIRCLE_RADIUS
    assert value(res, "rf_geared_coulomb_dev") < 5e-3 and value(res, "rf_geared_free") < 1e-6
    cov = d["geared_sims"]["covered"]
    assert cov["none"] == pytest.approx(1.0, abs=1e-3) and cov["Coulomb consistent"] > 0.9
    assert value(res, "rf_own_coulomb") < sf.OWN_COULOMB_TOL and value(res, "rf_own_stribeck") < sf.OWN_STRIBECK_TOL
    assert value(res, "rf_own_decoupled") > 10 * value(res, "rf_own_coulomb")
    assert value(res, "rf_balance") < 1e-6 and value(res, "rf_power") <= 0
    assert value(res, "rf_geared_energy") > 10
    assert value(res, "rf_geared_level") == pytest.approx(geared.coulomb_torque / d["rms_law"]["coulomb_consistent"])
    assert value(res, "rf_geared_level") > 100                              # "more than a hundred times"


def test_exercises(res):
    d = res.data
    e1 = d["exercise_1"]
    assert e1["robolib"] == pytest.approx(e1["estimate"], rel=0.01)
    e2 = d["exercise_2"]
    assert e2["load"] == pytest.approx(100.0)                                 # T_c / (mu R) = 0.1 / 0.001
    tf = R.inverse_dynamics(d["robot"], d["q_id"], d["dq_id"], d["ddq_id"], "coulomb_consistent", e2["preload"])
    assert R.rms(tf.friction_torque) == pytest.approx(d["geared"].coulomb_torque, rel=1e-6)
    assert 20 < e2["preload"] < 60 and 300 < e2["ratio"] < 500                # "a few tens of N m", ~380 x, not thousands
    assert value(res, "rf_ex2_ratio") == e2["ratio"] and "rf_ex2_ratio" not in res.values   # a claim, not a bare value
    rows = d["exercise_3"]
    assert [r[0] for r in rows] == [0.02, 0.01, 0.005]
    assert all(r[2] > 0.9 for r in rows) and value(res, "rf_eps_change") < 1e-3


def test_the_exercise_solutions_print_the_study_s_answers(quick_study):
    """Each solution is visible library code (run here as the notebook runs it); what it prints is the study's value."""
    res = quick_study(NAME)
    out = solution_outputs(NAME, quick=True, res=res)
    d = res.data
    est, peak = (float(x) for x in re.findall(r"= (\S+) N m", out[0]))
    assert (est, peak) == pytest.approx((d["exercise_1"]["estimate"], d["exercise_1"]["robolib"]), rel=1e-4)
    load, preload = (float(x) for x in re.search(r"= (\S+) N; .*: (\S+) N m", out[1]).groups())
    assert load == pytest.approx(d["exercise_2"]["load"]) and preload == pytest.approx(d["exercise_2"]["preload"], abs=0.01)
    errors = [float(x) * 1e-3 for x in re.findall(r"error (\S+) mm", out[2])]
    assert errors == pytest.approx([r[1] for r in d["exercise_3"]], rel=1e-5)


# ---- parameters that must move the claims ---------------------------------------------------------------------
def test_larger_mu_moves_the_calibration_and_the_decoupling_error(res, quick_study):
    hi = quick_study(NAME, mu=0.3)
    assert "rf_cal_tc" in hi.failing()                                        # the file's T_c no longer is the calibration
    assert hi["rf_cal_rms"].holds                                             # ... but the run recalibrates
    assert value(hi, "rf_cal_tc") / value(res, "rf_cal_tc") == pytest.approx(3.0, rel=0.05)   # T_c ~ mu R
    assert value(hi, "rf_dec_ref") / value(res, "rf_dec_ref") == pytest.approx(3.0, rel=0.15)  # error ~ mu R
    assert value(hi, "rf_dec_est") / value(res, "rf_dec_est") == pytest.approx(3.0, rel=1e-9)  # bound exactly ~ mu R
    assert value(hi, "rf_dec_1pct") == pytest.approx(value(res, "rf_dec_1pct"), rel=1e-9)      # a property of the path


def test_hand_set_stribeck_level_breaks_equal_level(quick_study, res):
    off = quick_study(NAME, coulomb_torque=6e-4)
    assert off.data["robot"].coulomb_torque == 6e-4 and off.data["robot"].static_torque == pytest.approx(9e-4)
    assert "rf_cal_rms" in off.failing()
    assert value(off, "rf_cal_rms") == pytest.approx(6e-4 / value(res, "rf_cal_tc"), rel=1e-3)   # RMS_S ~ T_c
    assert value(off, "rf_speed_slow") > value(res, "rf_speed_slow")


def test_coarse_torque_schedule_fails_the_own_torque_claims(quick_study):
    coarse = quick_study(NAME, samples=100)
    assert {"rf_own_coulomb", "rf_own_stribeck"} <= set(coarse.failing())
    assert value(coarse, "rf_own_coulomb") > sf.OWN_COULOMB_TOL


# ---- declared parameters: every invalid value is refused, naming the parameter and its range, before any work ----
POSITIVE = ["journal_radius", "coulomb_torque", "stribeck_velocity", "smooth_eps"]
#: name -> invalid values of each relevant kind (boundary, out of range, NaN, inf, bool, wrong type).
INVALID = {
    "data_file": [3, "", None, ["redundant/default.yaml"], "redundant/nope.yaml", "prp3/paper.yaml"],
    "geared_file": [3, "", None, "redundant/nope.yaml", "prp3/paper.yaml"],
    "mu": [0.0, -0.1, math.nan, math.inf, True, "0.1", [0.1]],
    **{name: [0.0, -1e-3, math.nan, math.inf, -math.inf, False, "1", [1.0]] for name in POSITIVE},
    "viscous": [-1e-9, math.nan, math.inf, True, "0"],
    "calibrate": [1, 0, "yes", None, math.nan],
    "preload": [math.nan, math.inf, -math.inf, True, "0", None, [0.0]],
    "preload_sweep": [0.0, -0.3, math.nan, math.inf, True, "0.3", None],
    "preload_max": [0.0, -3.0, math.nan, math.inf, True, "3", None],
    "samples": [7, 0, -400, 400.0, math.nan, True, "400", None],
    "t_sim": [0.0, -1.0, math.nan, math.inf, True, "4", None],
    "n_jobs": [0, 1.5, math.nan, True, "1", None],
    "quick": [1, "yes", None],
}
#: name -> valid boundary (and other edge) values.
VALID = {
    "data_file": ["redundant/default.yaml", "redundant/geared.yaml"], "geared_file": ["redundant/default.yaml"],
    "mu": [None, 1e-12, 0.3, 5], **{name: [None, 1e-12, 2] for name in POSITIVE}, "viscous": [None, 0.0, 0, 1e-2],
    "calibrate": [True, False], "preload": [0.0, -1e3, 50, 0], "preload_sweep": [1e-12, 1], "preload_max": [1e-12, 30],
    "samples": [8, 100, 4000], "t_sim": [1e-9, 1, 4.0], "n_jobs": [1, 4, -1, -2], "quick": [True, False],
}


def test_every_parameter_is_declared_in_the_signatures_order():
    assert list(sf.PARAMETERS) == list(study.defaults(NAME)) and set(INVALID) == set(VALID) == set(sf.PARAMETERS)
    assert study.parameters(NAME) == sf.PARAMETERS and sf.run.parameters is sf.PARAMETERS
    assert not hasattr(sf, "check_study_parameters")                        # the hand-written checks are gone


@pytest.mark.parametrize("name, bad", [(n, v) for n, vs in INVALID.items() for v in vs],
                         ids=[f"{n}={v!r}" for n, vs in INVALID.items() for v in vs])
def test_invalid_values_are_refused_before_any_work(name, bad):
    spec = sf.PARAMETERS[name]
    msg, cpu = refusal(lambda: study.run(NAME, **{"quick": True, name: bad}))
    assert msg.startswith(f"{name} = {bad!r} is not valid: "), msg
    if spec.kind == "file" and isinstance(bad, str) and bad:
        assert "parameter file" in msg and ("not found" in msg or "redundant-robot parameter file" in msg), msg
    else:
        assert f"{name} must be {spec.valid_text()} ({spec.meaning})" in msg, msg
    assert cpu < PROMPT_CPU_S, f"{cpu:.2f} s of CPU: the check must come before any work"


@pytest.mark.parametrize("name, good", [(n, v) for n, vs in VALID.items() for v in vs],
                         ids=[f"{n}={v!r}" for n, vs in VALID.items() for v in vs])
def test_valid_boundary_values_are_accepted(name, good):
    sf.PARAMETERS[name].validate(name, good)


def test_the_ranges_are_the_physical_ones():
    text = {name: spec.valid_text() for name, spec in sf.PARAMETERS.items()}
    assert text["mu"] == "a number > 0, or None" and text["journal_radius"] == "a number > 0 m, or None"
    assert text["viscous"] == "a number >= 0 N m s/rad, or None" and text["preload"] == "a finite number N m"
    assert text["samples"] == "an integer >= 8" and text["t_sim"] == "a number > 0 s"
    assert text["calibrate"] == text["quick"] == "True or False"


def test_unknown_parameter_and_missing_file():
    with pytest.raises(ParameterError, match="n_sampels"):
        study.run(NAME, n_sampels=5)
    with pytest.raises(ParameterError, match=names("data_file", "'redundant/nope.yaml'", "not found")):
        sf.run(data_file="redundant/nope.yaml", quick=True)   # the function checks too, not only run()


# ---- preloads no simulation can follow -----------------------------------------------------------------------------
@pytest.mark.parametrize("name, value", [("preload", 1e9), ("preload", -1e9), ("preload_sweep", 40.0)])
def test_a_preload_no_simulation_can_follow_is_refused_up_front_naming_the_bound(name, value):
    """-p preload 1e9 ran, overflowed (joint rates of 1e213 rad/s) and reported "value not determined"; the run now
    computes the followable range first (redundant.followable_preload) and names the parameter, the bound and why."""
    msg, cpu = refusal(lambda: study.run(NAME, quick=True, **{name: value}))
    m = re.search(rf"^{name} = \S+ N m is beyond what a simulation can follow: a preload must lie in "
                  r"\[(\S+), (\S+)\] N m", msg)
    assert m, msg
    lo, hi = (float(x) for x in m.groups())
    assert lo < 0 < hi and not lo <= value <= hi
    assert ("round-off" in msg) == (value > 0) and ("RK4 step" in msg) == (value < 0)
    assert cpu < PROMPT_CPU_S, f"{cpu:.2f} s of CPU: the condition must be computed before any work"


# ---- the model-dependent condition and a simulation without a solution ------------------------------------------
def test_mu_R_too_large_for_the_consistent_coulomb_model_is_refused_up_front():
    """The known failure asked "mu * journal_radius too large for a contraction?" after the work; the run now
    computes the contraction factor on the reference circle first and says which parameters and what bound."""
    msg, cpu = refusal(lambda: study.run(NAME, quick=True, mu=20.0))
    assert msg.startswith("mu = 20, journal_radius = 0.01 m (data file): the consistent-Coulomb fixed point"), msg
    m = re.search(r"computed contraction factor mu R max \|\|dF/dtau\|\| = ([\d.]+) .* must be below ([\d.]+) .*"
                  r"mu \* journal_radius < ([\d.]+) m here", msg)
    assert m, msg
    factor, limit, bound = (float(x) for x in m.groups())
    assert factor > limit == pytest.approx(R.simulation.CONTRACTION_LIMIT, abs=1e-3)
    assert bound == pytest.approx(0.2 * limit / factor, rel=1e-2)
    assert cpu < PROMPT_CPU_S, f"{cpu:.2f} s of CPU: the condition must be computed before any work"
    too_large = names("mu = 0.1", "data file", "journal_radius = 2 m") + r"(?s:.*)< 0\.13\d m"
    with pytest.raises(ParameterError, match=too_large):
        study.run(NAME, quick=True, journal_radius=2.0)
    # just inside the bound the condition holds (factors of the run, computed, below the limit)
    p = {**study.defaults(NAME), "quick": True, "mu": 0.99 * bound / 0.01}
    robot, geared = (dataclasses.replace(R.load(p[f]), mu=p["mu"]) for f in ("data_file", "geared_file"))
    factors = sf.coulomb_condition(p, robot, geared, sf.settings(True, 4.0))
    assert max(factors.values()) == pytest.approx(0.99 * limit, rel=2e-3)


def test_the_calibration_is_made_at_the_run_s_preload():
    """The equal-level comparison runs at the study's preload, so the Stribeck level is calibrated there: with a
    preload the calibration's Coulomb target is the preloaded one (larger bearing loads), and the two laws' RMS
    friction torques agree at it (a rerun with a preload keeps the chapter's premise)."""
    p = {**study.defaults(NAME), "quick": True}
    cal0 = sf.robots(p)[3]
    robot, cal = sf.robots({**p, "preload": 0.1})[1:4:2]
    direct = R.calibrate_stribeck(robot, static_ratio=cal.static_torque / cal.coulomb_torque,
                                  stribeck_velocity=robot.stribeck_velocity, viscous=robot.viscous,
                                  samples=p["samples"], preload=0.1)
    assert cal.coulomb_rms == pytest.approx(direct.coulomb_rms, rel=1e-12) and cal.coulomb_rms > 1.05 * cal0.coulomb_rms
    assert robot.coulomb_torque == pytest.approx(direct.coulomb_torque, rel=1e-12)


def test_a_simulation_without_a_solution_is_a_finding_of_the_run(quick_study):
    """mu = 1, preload = 5 N m: the condition holds on the circle, but the uncompensated geared Coulomb run drifts
    to a nearly stretched chain where the fixed point does not contract; the run reports it and goes on."""
    run = quick_study(NAME, mu=1.0, preload=5.0)
    assert run.data["contraction"] and max(run.data["contraction"].values()) < R.simulation.CONTRACTION_LIMIT
    assert set(run.data["geared_sims"]["stopped"]) == {"Coulomb consistent"}
    why = run.data["geared_sims"]["stopped"]["Coulomb consistent"]
    assert re.match(r"simulation stopped at t = 0\.7\d+ s: consistent Coulomb friction did not converge(?s:.*)"
                    r"contraction factor(?s:.*)not below 0\.759(?s:.*)no unique solution", why), why
    assert "too large for a contraction?" not in why and "smallest |sin b_i| = " in why
    dependent = {"rf_geared_coulomb_dev", "rf_geared_dec_sim", "rf_balance", "rf_power", "rf_geared_energy"}
    assert dependent <= set(run.failing())
    for cid in dependent:
        c = run[cid]
        assert c.value == f"Coulomb consistent (geared set, uncompensated): {why}" and c.text.startswith("not determined (")
        assert "does not hold" in c.markdown() and "stopped at t = 0.7" in c.markdown()
    for cid in ("rf_geared_free", "rf_geared_covered", "rf_geared_stribeck_dev"):   # the other runs went on
        assert run[cid].holds and isinstance(run[cid].value, float)
    sim = run.data["geared_sims"]["sims"]["Coulomb consistent"]
    assert 0.7 < sim.t[-1] < 0.8 and np.all(np.isfinite(sim.q)) and len(sim.t) == len(sim.friction_torque)
    labels = [t.get_text() for t in run.figures["paths"].legends[0].get_texts()]   # one legend below both panels
    assert any(t.startswith("Coulomb consistent (stopped at t = 0.7") for t in labels)


# ---- the Models page states what the code and the data file hold ------------------------------------------------
def test_models_page_friction_statements_match_the_code():
    text = (ROOT / "book" / "models" / "redundant.md").read_text()
    robot = R.load("redundant/default.yaml")
    kw = R.calibrate_stribeck.__kwdefaults__
    m = re.search(r"\$T_s = ([\d.]+)\\,T_c\$, \$w_s = ([\d.]+)\$ rad/s\s+and \$b_v = ([\d.]+)\$", text)
    assert m, "the page states the calibration rule T_s = r T_c, w_s, b_v"
    ratio, ws, bv = (float(x) for x in m.groups())
    assert robot.static_torque / robot.coulomb_torque == pytest.approx(ratio, rel=1e-3) == kw["static_ratio"]
    assert robot.stribeck_velocity == ws == kw["stribeck_velocity"] and robot.viscous == bv == kw["viscous"]
    assert "consistent Coulomb model, no preload" in text and kw["preload"] == 0.0
    m = re.search(r"journal bearing with \$\\mu = ([\d.]+)\$ and \$R = ([\d.]+)\$ mm", text)
    assert m and robot.mu == float(m.group(1)) and robot.journal_radius * 1e3 == pytest.approx(float(m.group(2)))
    cal = R.calibrate_stribeck(robot, static_ratio=ratio, stribeck_velocity=ws, viscous=bv)
    assert cal.coulomb_torque == pytest.approx(robot.coulomb_torque, rel=sf.CAL_FILE_TOL)   # "the file stores the result"


def test_the_live_explore_panel_spans_its_declared_ranges_whatever_quick_is(res, monkeypatch):
    from robolib.studies.redundant_friction.figures import explore_panel

    monkeypatch.setenv("JPY_SESSION_NAME", "chapter")
    assert res.params["quick"]
    period, payload, preload = explore_panel(res).children[1:4]
    assert type(period).__name__ == "FloatLogSlider" and (10 ** period.min, 10 ** period.max) == pytest.approx((0.25, 20.0))
    assert (payload.min, payload.max, preload.min, preload.max) == (0.0, 2.0, -3.0, 3.0)
