"""The friction study of the redundant planar robot: the chapter *Redundant planar robot: friction comparison*.

:func:`run` runs every experiment of the chapter and returns a
:class:`robolib.book.result.StudyResult`: the two friction laws of the patent (the
load-dependent Coulomb law of a journal bearing and the rate-dependent Stribeck
law) calibrated to the same RMS friction torque on the reference circle, then
compared at other speeds, payloads and preloads, in slow motion, against the
patent's decoupled Coulomb model, under large preload, and, with the geared-joint
parameter set, uncompensated. Its keyword parameters are the chapter's
``parameters`` cell. The figures and the Explore panel are in
:mod:`robolib.studies.redundant_friction.figures`.

From Python::

    from robolib.studies.redundant_friction.study import run
    res = run(quick=True, mu=0.3)
    res.failing(), res["rf_dec_ref"].value

The small helpers below (named tolerances, turns covered, tracking error, fits) are
the pieces the claims are computed from.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy.optimize import minimize_scalar

from robolib.book.claims import ClaimsRegister
from robolib.book.notebook import parameter_table
from robolib.book.result import Stages, StudyResult
from robolib.core.params import declare_parameters
from robolib.redundant.dynamics import inverse_dynamics, reference_circle, reference_motion
from robolib.redundant.model import BAUMGARTE, CIRCLE_PERIOD, CIRCLE_RADIUS, DT
from robolib.redundant.simulation import (
    COMPARED_LAWS,
    CONTRACTION_LIMIT,
    decoupling_error,
    decoupling_map,
    followable_preload,
    friction_power,
    friction_sweep,
    operating_point,
    preload_growth,
    reference_torque,
    rms,
    simulate,
)
from robolib.studies.redundant_friction import figures as ff
from robolib.studies.redundant_friction.figures import sweep_difference
from robolib.studies.redundant_friction.settings import (
    BALANCE_TOL,
    CAL_FILE_TOL,
    CAL_RMS_TOL,
    DEC_LIMIT,
    DEV_FLAT,
    DIFF,
    EX1_AGREE,
    EX2_PRELOAD_BAND,
    FAST_RATE,
    FREE_TRACK_TOL,
    LEVEL_TOL,
    LINEAR_FROM,
    LINEAR_TOL,
    MODELS,
    OWN_COULOMB_TOL,
    OWN_STRIBECK_TOL,
    PARAMETERS,
    SPEED_FLAT,
    bisect_increasing,
    claim_of_runs,
    coulomb_condition,
    linear_fit_residual,
    log_slope,
    relative_difference,
    robots,
    settings,
    stops,
    tracking_error,
    turns,
    turns_covered,
)


# --- the experiments: each computes into ``d`` (the study's data) and registers its claims ---------
def equal_level(reg: ClaimsRegister, d: dict) -> None:
    """The reference motion, the two laws at the calibrated level, waveforms and energy per period."""
    robot, samples, preload = d["robot"], d["params"]["samples"], d["params"]["preload"]
    t = np.linspace(0.0, CIRCLE_PERIOD, samples, endpoint=False)
    q, dq, ddq = reference_motion(robot, t)
    w = dq[:, [2, 6, 10]]
    ids = {name: inverse_dynamics(robot, q, dq, ddq, model, preload) for name, model in MODELS.items()}
    d.update(t_id=t, q_id=q, dq_id=dq, ddq_id=ddq, w_id=w, ids=ids)
    cal, robot_file = d["cal"], d["robot_file"]
    rms_law = {law: rms(ids[name].friction_torque) for law, name in
               (("coulomb_consistent", "Coulomb consistent"), ("stribeck", "Stribeck"))}
    d["rms_law"] = rms_law
    # the two calibration claims check what the calibration imposes (equal RMS on the reference circle): they are
    # checks of the run's method, not findings (the findings are how the laws part away from that point)
    reg.claim("rf_cal_tc", "check of the calibration: the parameter file's Stribeck level T_c is the recomputed calibration "
              "(equal RMS friction torque with the consistent Coulomb model on the reference circle)", method=True,
              value=cal.coulomb_torque,
              criterion=f"the parameter file's T_c and the recomputed one differ by less than {CAL_FILE_TOL:.1%}",
              holds=abs(robot_file.coulomb_torque / cal.coulomb_torque - 1) < CAL_FILE_TOL,
              text=f"{cal.coulomb_torque * 1e3:.3f} mN m")
    ratio = rms_law["stribeck"] / rms_law["coulomb_consistent"]
    reg.claim("rf_cal_rms", "check of the calibration (true by construction): at the run's Stribeck level the two laws' "
              "RMS friction torques agree on the reference circle", method=True, value=ratio, criterion=f"the RMS friction torques of the two laws differ by less than {CAL_RMS_TOL:.0%}",
              holds=abs(ratio - 1) < CAL_RMS_TOL, text=f"RMS ratio {ratio:.3f}")
    wmax = float(np.abs(w).max())
    d["wmax"] = wmax
    sign = np.sign(w)
    reversals = (sign != np.roll(sign, 1, axis=0)).sum(axis=0)       # sign changes over the periodic samples
    d["reversals"] = reversals
    reg.claim("rf_wmax", "every active joint reverses twice per period on the circle, and the largest joint rate "
              "exceeds the Stribeck velocity w_s", value=wmax,
              criterion="each joint rate changes sign exactly twice over one period, and the largest joint rate is above w_s",
              holds=bool(np.all(reversals == 2) and wmax > robot.stribeck_velocity),
              text=f"{wmax:.2f} rad/s")
    ref = operating_point(robot, preload=preload, samples=samples, simulate_motion=False)
    d["e_cum"] = {law: -np.cumsum(np.sum(ids[name].friction_torque * w, axis=1)) * CIRCLE_PERIOD / samples
                  for law, name in (("coulomb_consistent", "Coulomb consistent"), ("stribeck", "Stribeck"))}
    E_C, E_S = ref["coulomb_consistent"]["energy"], ref["stribeck"]["energy"]
    reg.claim("rf_energy_ratio", "at equal RMS friction torque the Stribeck law dissipates more energy per period than the "
              "Coulomb law", answers="000.c4", value=E_S / E_C, criterion=f"the Stribeck energy per period is more than {DIFF:.0%} above the Coulomb energy",
              holds=E_S / E_C - 1 > DIFF, text=f"dissipates {E_S / E_C:.2f} times")
    # the Stribeck level a calibration on energy per period would choose: E_S is affine in T_c (T_s = r T_c),
    # E_S = T_c A + B with B the viscous part, so E_S = E_C at T_c (E_C - B) / (E_S - B); checked by recomputing E_S there
    period_dt = CIRCLE_PERIOD / samples
    B = float(robot.viscous * np.sum(w**2) * period_dt)
    tc_E = robot.coulomb_torque * (E_C - B) / (E_S - B)
    robot_E = dataclasses.replace(robot, coulomb_torque=tc_E, static_torque=tc_E * robot.static_torque / robot.coulomb_torque)
    E_check = operating_point(robot_E, preload=preload, samples=samples, simulate_motion=False)["stribeck"]["energy"]
    ratio_E = tc_E / robot.coulomb_torque
    reg.claim("rf_energy_cal", "calibrated on the friction energy per period instead of the RMS torque, the Stribeck "
              "level T_c would be lower", value=ratio_E,
              criterion=f"the equal-energy level is more than {DIFF:.0%} below the equal-RMS level, and the Stribeck energy "
                        "recomputed at it equals the Coulomb energy to 1e-9 (relative)",
              holds=ratio_E < 1 - DIFF and abs(E_check / E_C - 1) < 1e-9, text=f"{ratio_E:.2f} times")
    pk = ref["stribeck"]["friction_max"] / ref["coulomb_consistent"]["friction_max"]
    reg.claim("rf_peak_ratio", "at equal RMS level the peak friction torques of the two laws are close",
              value=pk, criterion=f"the largest Stribeck and the largest Coulomb friction torque differ by less than {DIFF:.0%}", holds=abs(pk - 1) < DIFF,
              text=f"{pk:.2f} times")
    # why the energies differ: the torque magnitudes where the joints move fast
    fast = np.abs(w) > FAST_RATE * robot.stribeck_velocity
    tS, tC = np.abs(ids["Stribeck"].friction_torque[fast]), np.abs(ids["Coulomb consistent"].friction_torque[fast])
    lvl = float(tS.mean() / robot.coulomb_torque)
    reg.claim("rf_energy_fast", f"where the joints move fast (|w| > {FAST_RATE:g} w_s) the Stribeck torque stays at its "
              "Coulomb level T_c", value=lvl, criterion=f"the mean magnitude of the Stribeck torque over those samples is within {LEVEL_TOL:.0%} of T_c",
              holds=abs(lvl - 1) < LEVEL_TOL, text=f"{lvl:.2f} times its Coulomb level")
    c_fast = float(tC.mean() / tS.mean())
    reg.claim("rf_energy_fast_coulomb", f"where the joints move fast (|w| > {FAST_RATE:g} w_s) the Coulomb torque is "
              "smaller than the Stribeck torque (mean magnitudes over those samples)", value=c_fast,
              criterion=f"over those samples the mean magnitude of the Coulomb torque is more than {DIFF:.0%} below that of the "
                        "Stribeck torque", holds=c_fast < 1 - DIFF,
              text=f"{c_fast:.2f} times")
    # the reason, in energy: the share of E_S - E_C that the fast samples carry (energy per sample -tau_f w dt)
    dE = -(ids["Stribeck"].friction_torque - ids["Coulomb consistent"].friction_torque) * w * period_dt
    share = float(dE[fast].sum() / dE.sum())
    d["energy_fast_share"] = share
    reg.claim("rf_energy_fast_share", f"the samples where the joints move fast (|w| > {FAST_RATE:g} w_s) carry most of the "
              "extra energy the Stribeck law dissipates per period", value=share,
              criterion=f"over one period, the part of E_S - E_C from the samples with |w| > {FAST_RATE:g} w_s (energy "
                        "-tau_f w dt per sample and joint) is more than half of E_S - E_C",
              holds=dE.sum() > 0 and share > 0.5,
              text=f"{share:.0%}")
    d["energy"] = {"coulomb_consistent": E_C, "stribeck": E_S, "peak_ratio": pk, "tc_equal_energy": tc_E}


def law_sweeps(d: dict) -> None:
    """The speed, payload and preload sweeps of :func:`~robolib.redundant.friction_sweep` (laws at fixed levels)."""
    s, robot = d["settings"], d["robot"]
    kw = dict(samples=s["sweep_samples"], n_jobs=d["params"]["n_jobs"], on_failure="stop")
    d["preloads"] = [f * d["params"]["preload_sweep"] for f in s["preload_fractions"]]
    d["sweeps"] = {
        "period": (s["periods"], friction_sweep(robot, "period", s["periods"], **kw), "circle period [s]"),
        "end_effector_mass": (s["payloads"], friction_sweep(robot, "end_effector_mass", s["payloads"], **kw),
                              "end-effector mass (payload) [kg]"),
        "preload": (d["preloads"], friction_sweep(robot, "preload", d["preloads"], **kw), r"preload $p$ [N m]"),
    }


def _length(x: float) -> str:
    """A small length (m) for a reader: in mm, µm or nm, two significant digits."""
    scale, unit = next(((s, u) for s, u in ((1e-3, "mm"), (1e-6, "µm")) if abs(x) >= 0.1 * s), (1e-9, "nm"))
    v = x / scale
    return f"{v:.0f} {unit}" if abs(v) >= 10 else f"{v:.2g} {unit}"


def sweep_stops(values, sw: dict, laws=COMPARED_LAWS, unit: str = "") -> list:
    """The stopped simulations of a sweep (:func:`stops` style): ``"<law> at <value><unit>: <why>"``."""
    return [f"{law} at {v:g}{unit}: {why}" for law in laws for v, why in zip(values, sw[law]["stopped"]) if why]


def speed_claims(reg: ClaimsRegister, d: dict) -> None:
    """Claims of the speed sweep."""
    periods, sw, _ = d["sweeps"]["period"]
    n_marked = int(np.sum(sweep_difference(sw, "friction_rms") > DIFF))
    reg.claim("rf_speed_marked", "away from the calibration period the laws' RMS friction torques differ by more than 10 % "
              "at most grid periods", answers="000.c4", value=n_marked,
              criterion=f"the RMS friction torques differ by more than {DIFF:.0%} at more than half of the {len(periods)} periods",
              holds=n_marked > len(periods) / 2, text=f"{n_marked} of the {len(periods)}")
    fast = sw["coulomb_consistent"]["friction_rms"][0] / sw["stribeck"]["friction_rms"][0]
    reg.claim("rf_speed_fast", f"on the fastest circle ({periods[0]:g} s) the Coulomb friction exceeds the Stribeck friction "
              "(RMS torque)", value=fast, criterion=f"the Coulomb RMS friction torque is more than {DIFF:.0%} above the Stribeck one there",
              holds=fast > 1 + DIFF,
              text=f"{fast:.1f} times")
    ratios = sw["stribeck"]["friction_rms"] / sw["coulomb_consistent"]["friction_rms"]
    slow = float(ratios[-1])
    reg.claim("rf_speed_slow", f"on the slowest circle ({periods[-1]:g} s) the Stribeck friction exceeds the Coulomb friction "
              "(RMS torque) by more than on any other circle of the speed sweep", value=slow,
              criterion=f"the Stribeck RMS friction torque is more than {DIFF:.0%} above the Coulomb one at the slowest period, "
                        "and the ratio Stribeck / Coulomb is largest there over the sweep",
              holds=slow > 1 + DIFF and int(np.argmax(ratios)) == len(periods) - 1, text=f"{slow:.1f} times")
    k = log_slope(periods, sw["coulomb_consistent"]["friction_rms"])
    reg.claim("rf_speed_slope", "the Coulomb friction torque scales like the inertial bearing loads, (2 pi / period)^2",
              value=k, criterion="the slope of the Coulomb RMS friction torque against the period, on log-log axes, is within 0.1 of -2", holds=abs(k + 2) < 0.1,
              text=f"slope {k:.2f}")
    rms_S = sw["stribeck"]["friction_rms"]
    flat = float(rms_S.max() / rms_S.min())
    reg.claim("rf_speed_stribeck", f"the Stribeck RMS friction torque changes by less than {SPEED_FLAT - 1:.0%} over the "
              "speed sweep", value=flat,
              criterion=f"largest over smallest Stribeck RMS friction torque of the sweep < {SPEED_FLAT:g}", holds=flat < SPEED_FLAT,
              text=f"by less than {(SPEED_FLAT - 1) * 100:.0f} %: its largest value is {flat:.2f} times its smallest")
    def spread_C():
        dev_C = sw["coulomb_consistent"]["deviation"]
        spread = dev_C.max() / dev_C.min()
        return spread, spread < DEV_FLAT, f"by less than {(DEV_FLAT - 1) * 100:.0f} %: its largest value is {spread:.3f} times its smallest"

    claim_of_runs(reg, sweep_stops(periods, sw, ["coulomb_consistent"], " s"), "rf_speed_dev_coulomb",
                  f"the uncompensated Coulomb deviation changes by less than {DEV_FLAT - 1:.0%} over the speed sweep "
                  "(friction and inertia both scale with (2 pi / period)^2)",
                  criterion=f"largest over smallest Coulomb deviation of the sweep < {DEV_FLAT:g}", compute=spread_C)

    def grow_S():
        dev_S = sw["stribeck"]["deviation"]
        grow = dev_S[-1] / dev_S[0]
        return grow, grow > 10, f"{grow:.0f} times"

    claim_of_runs(reg, sweep_stops(periods, sw, ["stribeck"], " s"), "rf_speed_dev_stribeck",
                  "the uncompensated Stribeck deviation grows as the circle slows (a nearly constant friction torque "
                  "against falling inertial torques)", criterion="the Stribeck deviation on the slowest circle is more than 10 times that on the fastest",
                  compute=grow_S)


def slow_reversals(reg: ClaimsRegister, d: dict) -> None:
    """Joint-1 friction on the reference and on the slowest circle; the Stribeck region's share."""
    robot, samples = d["robot"], d["params"]["samples"]
    p_slow = d["settings"]["periods"][-1]
    reg_ = {}
    for P in (CIRCLE_PERIOD, p_slow):
        tt = np.linspace(0.0, P, samples, endpoint=False)
        qq, dd, aa = reference_motion(robot, tt, period=P)
        ww = dd[:, [2, 6, 10]]
        r = {law: inverse_dynamics(robot, qq, dd, aa, law).friction_torque for law in COMPARED_LAWS}
        tfs = r["stribeck"]
        s = np.abs(ww) < robot.stribeck_velocity
        r.update(w=ww, t=tt, share=float(np.sum(tfs[s] ** 2) / np.sum(tfs**2)),
                 level=float(np.mean(np.abs(tfs)) / robot.coulomb_torque))
        reg_[P] = r
    d["slow"] = reg_
    ref, slow = reg_[CIRCLE_PERIOD], reg_[p_slow]
    reg.claim("rf_slow_share", f"on the slowest circle ({p_slow:g} s) the Stribeck region |w| < w_s carries more than 40 % "
              "of the Stribeck friction (share of its mean-square torque)", answers="000.c4", value=slow["share"],
              criterion="share above 40 % on the slowest circle, and below 25 % on the reference circle",
              holds=slow["share"] > 0.4 and ref["share"] < 0.25, text=f"{slow['share']:.0%}")
    reg.claim("rf_slow_ref_share", "on the reference circle the Stribeck region carries a small share of the Stribeck friction",
              value=ref["share"], criterion="share below 25 %", holds=ref["share"] < 0.25, text=f"{ref['share']:.0%}")
    ts_tc = robot.static_torque / robot.coulomb_torque
    reg.claim("rf_slow_level", "on the slowest circle the mean Stribeck friction torque rises above T_c towards T_s",
              value=slow["level"], criterion=f"the mean magnitude of the Stribeck torque, in units of T_c, is above its value on the "
                                              f"reference circle and between 1 and T_s / T_c = {ts_tc:g}",
              holds=ref["level"] < slow["level"] and 1 < slow["level"] < ts_tc,
              text=f"{slow['level']:.2f} times its Coulomb level")


def payload_claims(reg: ClaimsRegister, d: dict) -> None:
    """Claims of the payload sweep."""
    payloads, sw, _ = d["sweeps"]["end_effector_mass"]
    grow = sw["coulomb_consistent"]["friction_rms"][-1] / sw["coulomb_consistent"]["friction_rms"][0]
    reg.claim("rf_payload_coulomb", f"a heavier payload raises the Coulomb friction (RMS, {payloads[0]:g} to {payloads[-1]:g} kg)",
              value=grow, criterion=f"the Coulomb RMS friction torque at the heaviest payload is more than {DIFF:.0%} above that at "
              "the lightest", holds=grow > 1 + DIFF, text=f"{grow:.2f} times")
    n = int(np.sum(sweep_difference(sw, "friction_rms") > DIFF))
    reg.claim("rf_payload_marked", "payload sweep: grid points whose RMS friction torques differ by more than 10 %",
              answers="000.c4", value=n, criterion=f"the RMS friction torques differ by more than {DIFF:.0%} at one payload at least", holds=n >= 1,
              text=f"{n} of {len(payloads)}")
    def falls():
        gain = [float(sw[law]["deviation"][-1] / sw[law]["deviation"][0]) for law in COMPARED_LAWS]
        ok = all(np.all(np.diff(sw[law]["deviation"]) < 0) for law in COMPARED_LAWS)
        return gain, ok, f"{gain[0]:.2f} times (Coulomb) and {gain[1]:.2f} times (Stribeck)"

    claim_of_runs(reg, sweep_stops(payloads, sw, unit=" kg"), "rf_payload_dev", f"uncompensated, either law pushes the "
                  f"robot less far off its path the heavier its payload ({payloads[0]:g} to {payloads[-1]:g} kg)",
                  criterion="for both laws the largest deviation falls from each payload to the next heavier one", compute=falls)


def preload_claims(reg: ClaimsRegister, d: dict) -> None:
    """Claims of the preload sweep of the two laws."""
    preloads, sw, _ = d["sweeps"]["preload"]
    k0 = int(np.argmin(np.abs(preloads)))
    grow = sw["coulomb_consistent"]["friction_rms"][-1] / sw["coulomb_consistent"]["friction_rms"][k0]
    reg.claim("rf_preload_coulomb", f"a preload of {preloads[-1]:g} N m raises the Coulomb friction (RMS) above its "
              "no-preload value", answers="000.c3", value=grow, criterion=f"the Coulomb RMS friction torque at that preload is more than {DIFF:.0%} "
              "above that without preload", holds=grow > 1 + DIFF,
              text=f"{grow:.2f} times")
    stopped = sweep_stops(preloads, sw, unit=" N m")
    gain = {law: sw[law]["deviation"][-1] / sw[law]["deviation"][k0] for law in COMPARED_LAWS}
    neg = {law: sw[law]["deviation"][0] / sw[law]["deviation"][k0] for law in COMPARED_LAWS}
    claim_of_runs(reg, stopped, "rf_preload_dev", f"uncompensated, a preload of {preloads[-1]:g} N m enlarges the "
                  "deviation for both laws",
                  criterion="for both laws the largest deviation at that preload is more than twice that without preload",
                  compute=lambda: ([gain["coulomb_consistent"], gain["stribeck"]], min(gain.values()) > 2,
                                   f"{gain['coulomb_consistent']:.1f} times (Coulomb) and {gain['stribeck']:.1f} times "
                                   "(Stribeck)"))

    robot = d["robot"]
    k = np.real(preload_growth(robot, reference_circle(robot, np.linspace(0.0, CIRCLE_PERIOD, 16, endpoint=False)).p))
    lo, hi = followable_preload(robot, CIRCLE_PERIOD)
    reg.claim("rf_preload_growth", "held open-loop, the motion linearised with time frozen grows under a positive "
              "preload and oscillates under a negative one at 16 points of the circle: both modes grow under p > 0 "
              "(rates sqrt(k p)) and oscillate under p < 0 (frozen time suggests, not proves, instability)", value=[float(k.min()), float(k.max())],
              criterion="at 16 points of the circle both eigenvalues k of the linearised motion per N m of preload are real and "
                        "positive",
              holds=bool(k.min() > 0), text=f"k from {k.min():.3g} to {k.max():.3g} /s² per N m")
    d["followable_preload"] = (lo, hi)

    def asymmetric():
        asym = min(max(gain[law], neg[law]) / min(gain[law], neg[law]) for law in COMPARED_LAWS)
        return ([neg["coulomb_consistent"], neg["stribeck"]], asym > 2,
                f"{neg['coulomb_consistent']:.1f} times (Coulomb) and {neg['stribeck']:.1f} times (Stribeck)")

    claim_of_runs(reg, stopped, "rf_preload_dev_sign", f"the deviation's response is not symmetric in the sign of the "
                  f"preload (at {preloads[0]:g} N m against {preloads[-1]:g} N m)",
                  criterion="for each law the deviation grows (or shrinks) with the preload by factors at -p and at +p that differ by "
                        "more than a factor 2",
                  compute=asymmetric)


def decoupling(reg: ClaimsRegister, d: dict) -> None:
    """The patent's decoupled Coulomb model against the consistent one: reference error, estimate and maps."""
    robot, s = d["robot"], d["settings"]
    mu_r = np.asarray(s["mu_r"])
    err, est = decoupling_error(robot, preload=d["params"]["preload"], samples=d["params"]["samples"])
    reg.claim("rf_dec_ref", "with the parameter file's mu R the friction torque of the patent's decoupled Coulomb model "
              f"is within {DEC_LIMIT:.0%} of the consistent model's on the reference circle (largest difference over the largest torque)", answers="000.c3", value=err,
              criterion=f"error below {DEC_LIMIT:.0%} and not above the estimate mu R ||dF/dp||", holds=err < DEC_LIMIT and err <= est,
              text=f"{err * 100:.2f} %")
    reg.claim("rf_dec_est", "estimate mu R ||dF/dp|| of the decoupling error on the reference circle (dF/dp: bearing loads per N m of preload)",
              value=est, criterion="the estimate is not below the computed error", holds=est >= err, text=f"{est * 100:.2f} %")
    map_p = decoupling_map(robot, mu_r, "preload", s["map_preloads"], samples=s["map_samples"])
    map_T = decoupling_map(robot, mu_r, "period", s["map_periods"], samples=s["map_samples"])
    d["dec_maps"] = {"preload": map_p, "period": map_T}
    ok = bool(np.all(map_p[0] <= map_p[1] * (1 + 1e-9)) and np.all(map_T[0] <= map_T[1] * (1 + 1e-9)))
    reg.claim("rf_dec_bound", "the decoupling error stays below the estimate mu R ||dF/dp|| at every point of both maps",
              answers="000.c3", value=ok, criterion="the computed error is not above the estimate at any grid point of either map", holds=ok,
              text="stays below" if ok else "does not stay below")
    # mu R where the error reaches 1 % on the reference circle (no preload): interpolation in log-log
    e0 = map_p[0][:, s["map_preloads"].index(0.0)] if 0.0 in s["map_preloads"] else map_p[0][:, 0]
    muR = robot.mu * robot.journal_radius
    mu_1pct = float(np.exp(np.interp(np.log(DEC_LIMIT), np.log(e0), np.log(mu_r)))) if e0.max() > DEC_LIMIT else float("nan")
    mu_1pct_est = DEC_LIMIT / (est / muR) if muR > 0 else float("nan")
    d["dec"] = {"error": err, "estimate": est, "mu_1pct": mu_1pct, "mu_1pct_bound": mu_1pct_est}
    reg.claim("rf_dec_1pct", "the decoupling error reaches 1 % on the reference circle (no preload) at this mu R, "
              "above the parameter file's value and above the estimate's prediction", answers="000.c3", value=mu_1pct,
              criterion=f"the mu R at which the error reaches {DEC_LIMIT:.0%} is above the parameter file's mu R and not below the "
                        f"mu R at which the estimate reaches {DEC_LIMIT:.0%}",
              holds=mu_1pct > muR and mu_1pct >= mu_1pct_est * (1 - 1e-9), text=f"{mu_1pct * 1e3:.1f} mm")
    speed = float((map_T[0].max(axis=1) / map_T[0].min(axis=1)).max())
    reg.claim("rf_dec_speed", "the decoupling error changes by less than 5 % across the circle periods", value=speed,
              criterion="at every mu R, largest over smallest error across the circle periods < 1.05", holds=speed < 1.05,
              text=f"changes by at most {speed - 1:.1%}" if speed - 1 >= 5e-4 else "changes by less than 0.1 %")
    pre = float((map_p[0].max(axis=1) / map_p[0].min(axis=1)).max())
    reg.claim("rf_dec_preload", "preload changes the decoupling error by less than a factor 3", value=pre,
              criterion="at every mu R, largest over smallest error across the preloads < 3", holds=pre < 3, text=f"a factor {pre:.2f}")
    span = float((map_p[0].max(axis=0) / map_p[0].min(axis=0)).min())
    reg.claim("rf_dec_mu", f"over the map's mu R range ({mu_r[0] * 1e3:.2g} to {mu_r[-1] * 1e3:.3g} mm) the decoupling "
              "error changes far more than preload or speed change it", value=span,
              criterion="at every preload, largest over smallest error across the mu R of the map is more than 10 times the "
                        "largest change that preload causes and more than 10 times the largest change that speed causes", holds=span > 10 * pre and span > 10 * speed,
              text=f"a factor {span:.3g}")


def large_preload(reg: ClaimsRegister, d: dict) -> None:
    """Inverse dynamics on the reference circle over ``[-preload_max, preload_max]``; the least-friction preload."""

    robot, pmax = d["robot"], d["params"]["preload_max"]
    q, dq, ddq = d["q_id"], d["dq_id"], d["ddq_id"]
    p_grid = np.linspace(-pmax, pmax, d["settings"]["n_sweep"])
    rows = {"p": p_grid, "tf_rms": [], "F_mean": [], "tau_rms": [], "tau_rms_stribeck": [], "tf_rms_stribeck": []}
    for p in p_grid:
        r = inverse_dynamics(robot, q, dq, ddq, "coulomb_consistent", p)
        rows["tf_rms"].append(rms(r.friction_torque))
        rows["F_mean"].append(np.linalg.norm(r.reactions, axis=-1).mean())
        rows["tau_rms"].append(rms(r.tau))
        rs = inverse_dynamics(robot, q, dq, ddq, "stribeck", p)
        rows["tau_rms_stribeck"].append(rms(rs.tau))
        rows["tf_rms_stribeck"].append(rms(rs.friction_torque))
    rows = {k: np.asarray(v) for k, v in rows.items()}
    d["large_preload"] = rows

    def coulomb_rms(p):
        return rms(inverse_dynamics(robot, q, dq, ddq, "coulomb_consistent", p).friction_torque)

    best = minimize_scalar(coulomb_rms, bounds=(-1.0, 1.0), method="bounded", options={"xatol": 1e-6})
    gain = 1 - best.fun / coulomb_rms(0.0)
    reg.claim("rf_preload_best", "the least Coulomb friction is reached close to the minimum-norm torques (small preload)",
              value=best.x, criterion=f"the least-friction preload lies within 0.1 N m of zero and lowers the friction by less than {DIFF:.0%} "
                        "against no preload",
              holds=abs(best.x) < 0.1 and gain < DIFF, text=f"{best.x:.2g} N m, only {gain:.1%} below p = 0")
    k0 = int(np.argmin(np.abs(p_grid)))
    top = p_grid >= LINEAR_FROM * pmax
    top[-3:] = True                                   # at least three points
    res = linear_fit_residual(p_grid[top], rows["tf_rms"][top])
    ratio = rows["tf_rms"][-1] / rows["tf_rms"][k0]
    d["large_preload_fit"] = {"points": int(top.sum()), "residual": res}
    reg.claim("rf_preload_large", f"a preload of {pmax:g} N m multiplies the RMS Coulomb friction", value=ratio,
              criterion=f"the RMS Coulomb friction at {pmax:g} N m is more than 10 times that without preload, and a straight "
                        f"line fits it within {LINEAR_TOL:.0%} over the largest preloads (from {LINEAR_FROM:.2g} x {pmax:g} N m "
                        "on, at least 3 points)",
              holds=ratio > 10 and res < LINEAR_TOL, text=f"by {ratio:.0f}")


def geared_experiment(reg: ClaimsRegister, d: dict) -> None:
    """The uncompensated experiment: the four friction models of the geared set under the friction-free torques.

    A simulation that stops early (no solution of the dynamics at a state it reaches) is a finding of the
    run: the claims that need it fail, saying where and why (``d["geared_sims"]["stopped"]``).
    """
    geared, p, t_sim = d["geared"], d["params"], d["settings"]["t_sim"]
    sched = reference_torque(geared, None, p["preload"], p["samples"])
    q0, dq0 = d["q_id"][0], d["dq_id"][0]
    sims = {name: simulate(geared, q0, dq0, sched, t_sim, friction=model, on_failure="stop")
            for name, model in MODELS.items()}
    c = geared.centroid
    dev = {n: tracking_error(geared, s) for n, s in sims.items()}
    radial = {n: np.abs(np.linalg.norm(s.end_effector - c, axis=-1) - CIRCLE_RADIUS) for n, s in sims.items()}
    covered = {n: turns_covered(s.end_effector, c, t_sim, CIRCLE_PERIOD) if s.stopped is None else float("nan")
               for n, s in sims.items()}
    stopped = {n: stops({n: s}, " (geared set, uncompensated)") for n, s in sims.items()}
    d["geared_sims"] = {"sims": sims, "deviation": dev, "radial": radial, "covered": covered,
                        "stopped": {n: s.stopped for n, s in sims.items() if s.stopped}}
    tau_max = float(np.abs(d["ids"]["none"].tau).max())          # friction-free torques: the same robot masses
    d["tau_max_free"] = tau_max
    level = geared.coulomb_torque / d["rms_law"]["coulomb_consistent"]
    reg.claim("rf_geared_level", "the geared joints' Stribeck level T_c is more than a hundred times the RMS bearing Coulomb "
              "friction torque of the reference circle: the two laws are not at equal level in this experiment",
              value=level, criterion="the geared T_c is more than 100 times the RMS Coulomb friction torque on the reference circle", holds=level > 100,
              text=f"{level:.0f} times")
    claim_of_runs(reg, stopped["none"], "rf_geared_free", "without friction the robot follows the circle under the "
                  "friction-free torques", criterion="largest tracking error below 1 micrometre",
                  compute=lambda: (dev["none"].max(), dev["none"].max() < FREE_TRACK_TOL, _length(dev["none"].max())))
    reg.claim("rf_geared_breakaway", "the geared-joint breakaway level T_s exceeds the largest friction-free motor torque",
              value=tau_max, criterion="the geared T_s is above the largest motor torque of the friction-free motion", holds=geared.static_torque > tau_max,
              text=f"{tau_max:.3g} N m")
    claim_of_runs(reg, stopped["Stribeck"], "rf_geared_covered", "with geared Stribeck joints and no compensation the "
                  "end-effector covers only a small share of the commanded turns", answers="000.c4", criterion="less than half of the commanded turns covered",
                  compute=lambda: (covered["Stribeck"], covered["Stribeck"] < 0.5, f"{covered['Stribeck']:.1%}"))
    claim_of_runs(reg, stopped["Stribeck"], "rf_geared_stribeck_dev", "its tracking error then exceeds the circle's "
                  "radius", criterion=f"largest tracking error above the circle's radius ({CIRCLE_RADIUS:g} m)",
                  compute=lambda: (dev["Stribeck"].max(), dev["Stribeck"].max() > CIRCLE_RADIUS,
                                   f"{dev['Stribeck'].max() * 1e3:.3g} mm"))

    def coulomb_dev():
        dC = dev["Coulomb consistent"].max()
        return dC, dC < 5e-3 and covered["Coulomb consistent"] > 0.9, f"{dC * 1e3:.3g} mm"

    claim_of_runs(reg, stopped["Coulomb consistent"], "rf_geared_coulomb_dev", "with the (unchanged) bearing Coulomb law "
                  "the end-effector still runs round the circle, off by less than 5 mm",
                  criterion="largest tracking error below 5 mm and at least 90 % of the commanded turns covered", compute=coulomb_dev)

    def dec_sim():
        d_dc = float(np.abs(sims["Coulomb consistent"].end_effector - sims["Coulomb decoupled"].end_effector).max())
        return d_dc, d_dc < 0.01 * dev["Coulomb consistent"].max(), _length(d_dc)

    claim_of_runs(reg, stopped["Coulomb consistent"] + stopped["Coulomb decoupled"], "rf_geared_dec_sim",
                  "decoupled and consistent Coulomb simulations follow nearly the same path",
                  criterion="largest distance between the two paths < 1 % of the Coulomb tracking error", compute=dec_sim)


def own_torques(reg: ClaimsRegister, d: dict) -> None:
    """Each friction model driven by its own inverse-dynamics torques (feed-forward compensation), both sets."""
    p, t_sim = d["params"], d["settings"]["t_sim"]
    q0, dq0 = d["q_id"][0], d["dq_id"][0]
    own, stopped = {}, {}
    for label, rb in (("geared", d["geared"]), ("calibrated", d["robot"])):
        for name, model in MODELS.items():
            if model is None:
                continue
            sched = reference_torque(rb, model, p["preload"], p["samples"])
            sim = simulate(rb, q0, dq0, sched, t_sim, friction=model, on_failure="stop")
            own[label, name] = float(tracking_error(rb, sim).max()) if sim.stopped is None else float("nan")
            stopped[label, name] = stops({name: sim}, f" ({label} set, own torques)")
    d["own"] = own
    d["own_stopped"] = {k: v[0] for k, v in stopped.items() if v}

    def worst(name, tol, fmt):
        def compute():
            x = max(own["geared", name], own["calibrated", name])
            return x, x < tol, fmt(x)
        return compute

    claim_of_runs(reg, stopped["geared", "Coulomb consistent"] + stopped["calibrated", "Coulomb consistent"],
                  "rf_own_coulomb", "under its own inverse-dynamics torques the consistent Coulomb model follows the circle",
                  criterion="largest tracking error below 1 micrometre with either parameter set",
                  compute=worst("Coulomb consistent", OWN_COULOMB_TOL, _length))
    claim_of_runs(reg, stopped["geared", "Stribeck"] + stopped["calibrated", "Stribeck"], "rf_own_stribeck",
                  "under its own inverse-dynamics torques the Stribeck model follows the circle",
                  criterion="largest tracking error below 0.1 mm with either parameter set",
                  compute=worst("Stribeck", OWN_STRIBECK_TOL, _length))
    dec = own["geared", "Coulomb decoupled"]
    claim_of_runs(reg, stopped["geared", "Coulomb decoupled"] + stopped["geared", "Coulomb consistent"],
                  "rf_own_decoupled", "the decoupled Coulomb model is not exactly its own inverse (two linearisation "
                  "points)", criterion="its largest tracking error is more than 10 times that of the consistent model",
                  compute=lambda: (dec, dec > 10 * own["geared", "Coulomb consistent"], _length(dec)))


def energy_balance(reg: ClaimsRegister, d: dict) -> None:
    """Energy balance, friction power and dissipated energy of the geared-joint simulations."""
    sims = d["geared_sims"]["sims"]
    moving = {n: s for n, s in sims.items() if n != "none"}

    def balance():
        bal = max(float(np.abs(s.kinetic_energy - s.kinetic_energy[0] - s.motor_work + s.dissipated_energy).max())
                  for s in sims.values())
        return bal, bal < BALANCE_TOL, f"{bal * 1e6:.2g} µJ"

    claim_of_runs(reg, stops(sims, " (geared set, uncompensated)"), "rf_balance", "the energy balance dT = W_motor - "
                  "E_diss closes in the geared-joint simulations", criterion="largest residual of the balance below 1e-6 J", compute=balance)

    def power():
        pmx = max(float(friction_power(s).max()) for s in moving.values())
        return pmx, pmx <= 0, f"{pmx * 1e3:.2g} mW"

    claim_of_runs(reg, stops(moving, " (geared set, uncompensated)"), "rf_power", "the friction power is never positive",
                  criterion="the largest friction power recorded is not above 0 W", compute=power)
    pair = {n: sims[n] for n in ("Coulomb consistent", "Stribeck")}

    def energy():
        E = {n: float(s.dissipated_energy[-1]) for n, s in pair.items()}
        return (E["Stribeck"] / E["Coulomb consistent"], E["Stribeck"] > 10 * E["Coulomb consistent"],
                f"{E['Stribeck'] * 1e3:.3g} mJ against {E['Coulomb consistent'] * 1e3:.3g} mJ")

    claim_of_runs(reg, stops(pair, " (geared set, uncompensated)"), "rf_geared_energy", "uncompensated, the geared "
                  "Stribeck joints dissipate far more than the bearings", criterion="the Stribeck joints dissipate more than 10 times the energy of the "
                  "Coulomb bearings", compute=energy)


def exercises(reg: ClaimsRegister, d: dict) -> None:
    """Exercise 1 (hand estimate of the Coulomb peak), 2 (preload for geared-level friction), 3 (eps study)."""
    robot, geared, p = d["robot"], d["geared"], d["params"]
    q, dq, ddq = d["q_id"], d["dq_id"], d["ddq_id"]
    free = inverse_dynamics(robot, q, dq, ddq, None, 0.0)
    load_max = float(np.linalg.norm(free.reactions, axis=-1).max())
    estimate = robot.mu * robot.journal_radius * load_max
    peak = float(np.abs(inverse_dynamics(robot, q, dq, ddq, "coulomb_consistent", 0.0).friction_torque).max())
    d["exercise_1"] = {"load": load_max, "estimate": estimate, "robolib": peak}
    gap = abs(peak / estimate - 1)
    reg.claim("rf_ex1_agree", "exercise 1: the hand estimate mu R max|F| (friction-free loads) of the largest Coulomb "
              "friction torque agrees with the consistent model to a fraction of a percent", value=gap,
              criterion=f"the largest consistent-Coulomb friction torque and the estimate differ by less than {EX1_AGREE:.0%}", holds=gap < EX1_AGREE, text=f"{gap:.2%}")

    def coulomb_rms(pre):
        return rms(inverse_dynamics(robot, q, dq, ddq, "coulomb_consistent", pre).friction_torque)

    load_ = geared.coulomb_torque / (robot.mu * robot.journal_radius) if robot.mu * robot.journal_radius > 0 else float("inf")
    pre = bisect_increasing(coulomb_rms, geared.coulomb_torque) if math.isfinite(load_) else float("nan")
    d["exercise_2"] = {"load": load_, "preload": pre, "ratio": pre / d["tau_max_free"]}
    lo, hi = EX2_PRELOAD_BAND
    reg.claim("rf_ex2_preload", "exercise 2: the preload that raises the RMS Coulomb bearing friction to the geared "
              "level T_c is a few tens of N m", value=pre, criterion=f"the preload lies between {lo:g} and {hi:g} N m",
              holds=lo < pre < hi, text=f"{pre:.0f} N m")
    ratio = d["exercise_2"]["ratio"]
    reg.claim("rf_ex2_ratio", "exercise 2: that preload is more than a hundred times the largest motor torque of the "
              "friction-free motion", value=ratio, criterion="the preload is more than 100 times the largest motor torque of the friction-free motion on the reference "
                        "circle",
              holds=ratio > 100, text=f"{ratio:.0f} times")
    # exercise 3: the uncompensated calibrated Stribeck run against the smoothing eps
    t_end = min(CIRCLE_PERIOD, d["settings"]["t_sim"])
    sched0 = reference_torque(robot, None, 0.0, p["samples"])
    rows, stopped = [], []
    for eps in d["settings"]["eps_values"]:
        rb = dataclasses.replace(robot, smooth_eps=eps)
        sim = simulate(rb, d["q_id"][0], d["dq_id"][0], sched0, t_end, friction="stribeck", dt=DT * eps / 0.01,
                       on_failure="stop")
        stopped += stops({f"Stribeck at eps = {eps:g} rad/s": sim}, " (exercise 3)")
        rows.append((eps, float(tracking_error(rb, sim).max()) if sim.stopped is None else float("nan"),
                     turns_covered(sim.end_effector, rb.centroid, t_end, CIRCLE_PERIOD) if sim.stopped is None
                     else float("nan")))
    d["exercise_3"] = rows
    devs, cov = np.array([r[1] for r in rows]), min(r[2] for r in rows)

    def changes():
        return np.abs(np.diff(devs)) / devs[-1]

    claim_of_runs(reg, stopped, "rf_eps_covered", "exercise 3: the uncompensated calibrated Stribeck run moves round the "
                  "circle", criterion="at least 90 % of the commanded turn at every eps",
                  compute=lambda: (cov, cov > 0.9, f"{cov:.1%}"))
    claim_of_runs(reg, stopped, "rf_eps_change", "exercise 3: the Stribeck tracking error hardly depends on the "
                  "smoothing eps", criterion="the largest tracking error changes by less than 1e-3 (relative) from one eps to the next",
                  compute=lambda: (float(changes().max()), changes().max() < 1e-3, f"{changes().max() * 100:.2g} %"))

    def converges():
        ch = changes()
        conv = bool(np.all(ch[1:] < ch[:-1]))
        steps = ", ".join(f"{x * 100:.2g} %" for x in ch[:-1]) + f" and {ch[-1] * 100:.2g} %"
        return [float(x) for x in ch], conv, (f"changes {steps}" if conv else f"they do not: changes {steps}")

    claim_of_runs(reg, stopped, "rf_eps_converges", "exercise 3: the change of the largest tracking error "
                  "from one eps to the next shrinks as eps decreases", criterion="each change is smaller than the previous one", compute=converges)


# --- the study ------------------------------------------------------------------------------------------
def parameter_rows(d: dict) -> list:
    """The ``extra`` rows of the chapter's parameter table: every value the run used besides its parameters."""
    robot, geared, s, p = d["robot"], d["geared"], d["settings"], d["params"]
    tuned = " (recomputed calibration)" if p["calibrate"] and p["coulomb_torque"] is None else ""
    run_factor = max(v for k, v in d["contraction"].items() if "decoupling maps" not in k)
    map_factor = max(v for k, v in d["contraction"].items() if "decoupling maps" in k)
    return [
        ("run: T_c, T_s, w_s, b_v", f"{robot.coulomb_torque:.4g} N m, {robot.static_torque:.4g} N m, "
         f"{robot.stribeck_velocity:g} rad/s, {robot.viscous:g} N m s/rad", "Stribeck parameters this run used" + tuned),
        ("run: mu, R, eps", f"{robot.mu:g}, {robot.journal_radius:g} m, {robot.smooth_eps:g} rad/s",
         "bearing law and smooth sign of this run"),
        (f"{p['geared_file']}: T_c, T_s, b_v", f"{geared.coulomb_torque:g} N m, {geared.static_torque:g} N m, "
         f"{geared.viscous:g} N m s/rad", "geared-joint set (otherwise equal to the run's robot), uncompensated experiment only"),
        ("reference circle", f"radius {CIRCLE_RADIUS:g} m, period {CIRCLE_PERIOD:g} s", "about the base centroid, counter-clockwise"),
        ("calibration", f"{p['samples']} samples per period, preload 0, T_s/T_c = {d['static_ratio']:g}",
         "RMS over samples and the three joints (redundant.calibrate_stribeck)"),
        ("PERIODS", s["periods"], "s, speed sweep (circle period)"),
        ("PAYLOADS", s["payloads"], "kg, payload sweep (end-effector mass)"),
        ("PRELOADS", [round(x, 4) for x in d["preloads"]], "N m, preload sweep of the two laws"),
        ("sweep samples, simulated periods", f"{s['sweep_samples']}, 1", "per sweep point: inverse dynamics and one simulated period"),
        ("MU_R", [float(f"{m:.3g}") for m in s["mu_r"]], "m, mu R of the decoupling maps (mu varied at the file's R)"),
        ("MAP_PRELOADS, MAP_PERIODS", f"{s['map_preloads']} N m, {s['map_periods']} s", "second axes of the decoupling maps"),
        ("map samples", s["map_samples"], "inverse-dynamics samples per period in the maps"),
        ("preload study", f"{s['n_sweep']} preloads in [-{p['preload_max']:g}, {p['preload_max']:g}] N m", "bearing-load study"),
        ("simulated time", f"{s['t_sim']:g} s", "geared-joint and own-torque simulations (t_sim, at most 1 s in a quick run)"),
        ("exercise 3: eps", s["eps_values"], "rad/s, smooth-sign velocities (RK4 step scaled with eps)"),
        ("integrator", f"RK4, step {DT * 1e3:g} ms, Baumgarte alpha = beta = {BAUMGARTE[0]:g} 1/s", "redundant.simulate defaults"),
        ("consistent-Coulomb contraction factor", f"{run_factor:.3g} at this run's mu R, {map_factor:.3g} in the decoupling "
         f"maps (both < {CONTRACTION_LIMIT:.3g})", "largest mu R times the norm of dF/dtau on the reference circle, computed "
         "before the run (coulomb_condition)"),
        ("torque schedule", f"periodic cubic spline of {p['samples']} inverse-dynamics samples per period",
         "redundant.reference_torque"),
    ]


def criteria_rows() -> list:
    """The constants of the claims' criteria, fixed before the runs: ``(name, value, what they decide)`` rows."""
    return [
        ("DIFF", f"{DIFF:g}", "the relative difference of the two laws (or of one law between two operating points) that "
         "counts as a difference: energy and peaks at equal level, the speed, payload and preload sweeps, the "
         "equal-energy level"),
        ("CAL_RMS_TOL, CAL_FILE_TOL", f"{CAL_RMS_TOL:g}, {CAL_FILE_TOL:g}", "equal RMS friction torque of the calibrated "
         "laws; the parameter file's T_c against the recomputed one (relative)"),
        ("SPEED_FLAT, DEV_FLAT", f"{SPEED_FLAT:g}, {DEV_FLAT:g}", "speed sweep: the largest over the smallest Stribeck "
         "RMS friction torque, and the largest over the smallest uncompensated Coulomb deviation, below which each "
         "'hardly depends on speed'"),
        ("LEVEL_TOL", f"{LEVEL_TOL:g}", "the Stribeck torque at its Coulomb level where the joints move fast (relative)"),
        ("DEC_LIMIT", f"{DEC_LIMIT:g}", "the relative error of the decoupled Coulomb model that is still accurate; the "
         "mu R at which it is reached"),
        ("LINEAR_FROM, LINEAR_TOL", f"{LINEAR_FROM:g}, {LINEAR_TOL:g}", "linear growth of the Coulomb friction at large "
         "preload: from which share of the largest preload the line is fitted, and its relative residual"),
        ("FREE_TRACK_TOL, OWN_COULOMB_TOL, OWN_STRIBECK_TOL", f"{FREE_TRACK_TOL:g} m, {OWN_COULOMB_TOL:g} m, "
         f"{OWN_STRIBECK_TOL:g} m", "tracking error of the friction-free run, and of the consistent Coulomb and the "
         "Stribeck model under their own torques"),
        ("BALANCE_TOL", f"{BALANCE_TOL:g} J", "residual of the energy balance of the geared-joint simulations"),
        ("EX1_AGREE, EX2_PRELOAD_BAND", f"{EX1_AGREE:g}, {EX2_PRELOAD_BAND} N m", "exercise 1: hand estimate against the "
         "model (relative); exercise 2: the band of 'a few tens of N m'"),
    ]


def key_table(d: dict) -> str:
    """The lecture's short table of the robot and its friction laws in this run, in words and symbols (every
    parameter, by its name in the code, is in the evidence page's full table)."""
    robot, p = d["robot"], d["params"]
    how = ("recomputed by the calibration" if p["calibrate"] and p["coulomb_torque"] is None
           else "set by the parameter coulomb_torque" if p["coulomb_torque"] is not None else "from the parameter file")
    rows = [
        (r"bearing friction $\mu$, journal radius $R$", f"{robot.mu:g}, {robot.journal_radius * 1e3:g} mm",
         "Coulomb law of the bearings"),
        (r"Stribeck law $T_c$, $T_s$, $w_s$, $b_v$", f"{robot.coulomb_torque * 1e3:.3g} mN m, "
         f"{robot.static_torque * 1e3:.3g} mN m, {robot.stribeck_velocity:g} rad/s, {robot.viscous:g} N m s/rad",
         f"$T_c$ {how}, $T_s = {d['static_ratio']:g}\\,T_c$"),
        (r"smooth sign $\varepsilon$", f"{robot.smooth_eps:g} rad/s", r"$\tanh(w/\varepsilon)$ for $\operatorname{sgn}(w)$"),
        ("link length", f"{robot.link_length:g} m", "every link, active and passive"),
        ("masses: active link, passive link, end-effector",
         f"{robot.active_mass:g} kg, {robot.passive_mass:g} kg, {robot.end_effector_mass:g} kg",
         "the end-effector a point mass on chain 1's tip"),
        ("reference circle", f"radius {CIRCLE_RADIUS:g} m, period {CIRCLE_PERIOD:g} s",
         "about the base centroid, counter-clockwise"),
    ]
    return f"**The robot and its friction laws in this run**\n\n{_md_table(('quantity', 'value', 'meaning'), rows)}\n"


#: Captions of the tables of the chapter's evidence page (``book/evidence/redundant_friction.md``), in its order.
EVIDENCE_CAPTIONS = {
    "calibration": "The calibration on the reference circle: the Stribeck level T_c of the parameter file and as "
                   "recomputed, the RMS friction torque and the friction energy per period of both laws at that level, "
                   "and the level an equal-energy calibration would choose.",
    "own_torques": "Feed-forward compensation: the largest tracking error of each friction model driven by its own "
                   "inverse-dynamics torques (no feedback), for both parameter sets.",
    "all_parameters": "Every parameter of this run, with units and meaning.",
    "criteria": "The constants of the claims' criteria, fixed before the runs "
                "(robolib.studies.redundant_friction.settings).",
}
#: The evidence page's tables, numbered S1, S2, ... in this order.
EVIDENCE_TABLES = tuple(EVIDENCE_CAPTIONS)


#: Caption of the lecture's Table 1 (:func:`operating_points`).
OPERATING_POINTS_CAPTION = ("Each law's RMS friction torque when one condition of the reference circle changes, the "
                            "friction levels staying at the calibration: as a factor of its value on the reference "
                            "circle, and the ratio of the two laws.")


def operating_points(d: dict) -> list:
    """Rows ``(operating point, Coulomb factor, Stribeck factor, Stribeck / Coulomb)`` of the lecture's Table 1: the
    ends of the speed, payload and preload sweeps and the largest preload of the bearing-load study, each law's RMS
    friction torque divided by its value at the reference point of the same sweep (period 2 s, the file's payload, no
    preload)."""
    robot, rows = d["robot"], []
    cal = d["rms_law"]["stribeck"] / d["rms_law"]["coulomb_consistent"]
    rows.append((f"reference circle: period {CIRCLE_PERIOD:g} s, payload {robot.end_effector_mass:g} kg, no preload",
                 1.0, 1.0, cal))

    def ends(name, ref, label):
        values, sw, _ = d["sweeps"][name]
        x = np.asarray(values, dtype=float)
        k0 = int(np.argmin(np.abs(x - ref)))
        c, st = sw["coulomb_consistent"]["friction_rms"], sw["stribeck"]["friction_rms"]
        for k in (0, len(x) - 1):
            if k != k0:
                rows.append((label(x[k]), float(c[k] / c[k0]), float(st[k] / st[k0]), float(st[k] / c[k])))

    ends("period", CIRCLE_PERIOD, lambda v: f"{'faster' if v < CIRCLE_PERIOD else 'slower'} circle: period {v:g} s")
    ends("end_effector_mass", robot.end_effector_mass, lambda v: f"payload {v:g} kg")
    ends("preload", 0.0, lambda v: f"preload {v:+g} N m")
    lp = d["large_preload"]
    k0 = int(np.argmin(np.abs(lp["p"])))
    c, st = lp["tf_rms"], lp["tf_rms_stribeck"]
    rows.append((f"preload {lp['p'][-1]:+g} N m", float(c[-1] / c[k0]), float(st[-1] / st[k0]), float(st[-1] / c[-1])))
    return rows


def operating_point_cells(row: tuple) -> tuple:
    """The cells of one row of Table 2.1, values that hold by definition marked as such: the reference row's factors
    (1 by the definition of a factor) and its ratio (imposed by the calibration), and the Stribeck factor of a
    payload or preload row (the Stribeck law sees the joint rates only, which these changes leave alone).

    >>> operating_point_cells(("payload 0 kg", 0.862, 1.0, 1.16))
    ('payload 0 kg', '0.862', '1 (rates unchanged)', '1.16')
    """
    label, coulomb, stribeck, ratio = row
    if label.startswith("reference circle"):
        return label, "1 (reference)", "1 (reference)", f"{ratio:.3g} (calibrated)"
    rates_only = label.startswith(("payload", "preload"))
    return label, f"{coulomb:.3g}", f"{stribeck:.3g}" + (" (rates unchanged)" if rates_only else ""), f"{ratio:.3g}"


def _md_table(header: tuple, rows: list) -> str:
    """A Markdown table of ``rows`` under ``header``."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(":---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(str(x) for x in r) + " |" for r in rows])


def evidence_tables(d: dict, full_table: str, criteria_table: str) -> dict:
    """The evidence page's tables, captioned "Table S<k>" (:data:`EVIDENCE_CAPTIONS`)."""
    cal, robot_file, robot, e = d["cal"], d["robot_file"], d["robot"], d["energy"]
    calibration = _md_table(("quantity", "value"), [
        ("T_c of the parameter file", f"{robot_file.coulomb_torque * 1e3:.5g} mN m"),
        ("T_c recomputed (redundant.calibrate_stribeck)", f"{cal.coulomb_torque * 1e3:.5g} mN m"),
        ("T_c of this run", f"{robot.coulomb_torque * 1e3:.5g} mN m"),
        ("RMS friction torque, Coulomb (consistent) / Stribeck",
         f"{d['rms_law']['coulomb_consistent'] * 1e3:.5g} / {d['rms_law']['stribeck'] * 1e3:.5g} mN m"),
        ("friction energy per period, Coulomb (consistent) / Stribeck",
         f"{e['coulomb_consistent'] * 1e3:.4g} / {e['stribeck'] * 1e3:.4g} mJ"),
        ("T_c of equal energy per period", f"{e['tc_equal_energy'] * 1e3:.4g} mN m"),
    ])
    own = _md_table(("parameter set", "friction model", "largest tracking error"),
                    [(label, name, f"{v * 1e3:.2e} mm") for (label, name), v in d["own"].items()])
    tables = {"calibration": calibration, "own_torques": own, "all_parameters": full_table, "criteria": criteria_table}
    return {name: f"**Table S{k + 1}** — {EVIDENCE_CAPTIONS[name]}\n\n{tables[name]}"
            for k, name in enumerate(EVIDENCE_TABLES)}


def _values(d: dict) -> dict:
    """The non-claim numbers the prose glues, as text."""
    robot, geared, p, s = d["robot"], d["geared"], d["params"], d["settings"]
    e2 = d["exercise_2"]
    return {"rf_radius": f"{CIRCLE_RADIUS:g}", "rf_period": f"{CIRCLE_PERIOD:g}", "rf_eps": f"{robot.smooth_eps:g}",
            "rf_static_ratio": f"{d['static_ratio']:g}", "rf_diff_pct": f"{DIFF * 100:g}",
            "rf_fast_rate": f"{FAST_RATE:g}", "rf_R_mm": f"{robot.journal_radius * 1e3:g}",
            "rf_muR_mm": f"{robot.mu * robot.journal_radius * 1e3:g}", "rf_preload_max": f"{p['preload_max']:g}", "rf_preload_sweep": f"{p['preload_sweep']:g}",
            "rf_geared_tc": f"{geared.coulomb_torque:g}", "rf_geared_ts": f"{geared.static_torque:g}",
            "rf_samples": f"{p['samples']}", "rf_sweep_samples": f"{s['sweep_samples']}", "rf_preload": f"{p['preload']:g}", "rf_dt_ms": f"{DT * 1e3:g}",
            "rf_t_sim": f"{s['t_sim']:g}", "rf_ex2_load": f"{e2['load']:.0f}", "rf_tau_max_free": f"{d['tau_max_free']:.2g}", "rf_mu": f"{robot.mu:g}",
            "rf_ex1_load": f"{d['exercise_1']['load']:.3g}", "rf_ex1_estimate": f"{d['exercise_1']['estimate'] * 1e3:.3g}",
            "rf_ex1_robolib": f"{d['exercise_1']['robolib'] * 1e3:.3g}",
            "rf_dec_1pct_bound": f"{d['dec']['mu_1pct_bound'] * 1e3:.2f}", "rf_followable_hi": f"{d['followable_preload'][1]:.0f}",
            "rf_followable_lo": f"{-d['followable_preload'][0]:,.0f}",
            # the consistent-Coulomb iteration's contraction factor at this run's mu R (computed before the run)
            "rf_contraction": f"{max(v for k, v in d['contraction'].items() if 'decoupling maps' not in k):.2g}",
            # what the fast samples' share of E_S - E_C means when it is above 100 % (said once, in the main line)
            "rf_energy_fast_note": ("more than the whole difference: the slower samples offset part of it, as there the Coulomb "
                                    "law dissipates a little more"
                                    if d["energy_fast_share"] > 1 else "the slower samples carry the rest")}


@declare_parameters(PARAMETERS, "redundant_friction")
def run(data_file="redundant/default.yaml", geared_file="redundant/geared.yaml", mu=None, journal_radius=None,
                   coulomb_torque=None, stribeck_velocity=None, viscous=None, smooth_eps=None, calibrate=True,
                   preload=0.0, preload_sweep=0.3, preload_max=3.0, samples=400, t_sim=4.0, n_jobs=1, quick=False):
    """The chapter *Redundant planar robot: friction comparison* as one function; returns a ``StudyResult``.

    Parameters (the chapter's ``parameters`` cell; SI units): ``data_file``
    the robot (Stribeck level calibrated), ``geared_file`` the geared-joint
    Stribeck magnitudes of the uncompensated experiment; friction overrides
    ``mu``, ``journal_radius`` (m), ``coulomb_torque`` T_c (N m, sets the
    Stribeck level by hand, ``T_s = (T_s/T_c)_file T_c``), ``stribeck_velocity``
    (rad/s), ``viscous`` (N m s/rad), ``smooth_eps`` (rad/s) -- None means the
    file's value; ``calibrate`` recomputes the Stribeck level of equal RMS
    friction torque for this robot; ``preload`` (N m) of the equal-level
    comparison, ``preload_sweep`` and ``preload_max`` (N m) the largest
    ``|preload|`` of the preload sweep and of the bearing-load study; ``samples``
    inverse-dynamics samples per period; ``t_sim`` (s) the length of the
    simulations; ``n_jobs`` joblib processes of the sweeps; ``quick`` small
    grids and short runs (:data:`QUICK`). Units and valid values:
    :data:`PARAMETERS` (checked on every call before any work, like the
    model-dependent condition :func:`coulomb_condition`). A simulation that
    stops early (the dynamics have no solution at a state it reaches) is a
    finding of the run: the claims that need it fail, saying where and why.

    ``tables``: ``parameters`` (the key parameters), ``operating_points`` (the lecture's Table 1) and the evidence page's :data:`EVIDENCE_TABLES`
    (``calibration``, ``own_torques``, ``all_parameters``, ``criteria``, captioned Table S1...); ``figures`` (see
    :mod:`~robolib.studies.redundant_friction.figures`): ``laws``, ``waveforms`` (with the energy per period),
    ``sweep_speed``, ``slow``, ``sweep_payload``,
    ``sweep_preload``, ``decoupling``, ``preload``, ``paths``, ``energy_geared``;
    ``data``: the robots, the reference motion and every experiment's arrays.
    """

    params = dict(data_file=data_file, geared_file=geared_file, mu=mu, journal_radius=journal_radius,
                  coulomb_torque=coulomb_torque, stribeck_velocity=stribeck_velocity, viscous=viscous,
                  smooth_eps=smooth_eps, calibrate=calibrate, preload=preload, preload_sweep=preload_sweep,
                  preload_max=preload_max, samples=samples, t_sim=t_sim, n_jobs=n_jobs, quick=quick)
    robot_file, robot, geared, cal, static_ratio, contraction = robots(params)
    d = {"params": params, "settings": settings(bool(quick), t_sim), "robot_file": robot_file, "robot": robot,
         "geared": geared, "cal": cal, "static_ratio": static_ratio, "contraction": contraction}
    stage = Stages("redundant_friction")
    reg = ClaimsRegister("redundant_friction", source="000", glue=False, quick=bool(quick))
    stage("the laws at equal level, and their sweeps over speed, payload and preload")
    equal_level(reg, d)
    law_sweeps(d)
    speed_claims(reg, d)
    slow_reversals(reg, d)
    payload_claims(reg, d)
    preload_claims(reg, d)
    stage("decoupling and large preload")
    decoupling(reg, d)
    large_preload(reg, d)
    stage("geared joints, own torques and the energy balance (simulations)")
    geared_experiment(reg, d)
    own_torques(reg, d)
    energy_balance(reg, d)
    exercises(reg, d)
    d["parameter_rows"] = parameter_rows(d)
    full = parameter_table([data_file], run=params, extra=d["parameter_rows"], spec=PARAMETERS)
    d["operating_points"] = operating_points(d)
    points = _md_table(("operating point", "Coulomb, factor", "Stribeck, factor", "Stribeck / Coulomb"),
                       [operating_point_cells(r) for r in d["operating_points"]])
    tables = {"parameters": key_table(d),   # the lecture's short table; every parameter is in "all_parameters"
              "operating_points": f"**Table 2.1** — {OPERATING_POINTS_CAPTION}\n\n{points}",
              **evidence_tables(d, full, parameter_table(extra=criteria_rows()))}
    return StudyResult("redundant_friction", params, reg, tables=tables, figures=ff.figures(d), data=d, values=_values(d),
                       wall_s=stage.elapsed())


__all__ = ["run", "PARAMETERS", "EVIDENCE_TABLES", "EVIDENCE_CAPTIONS", "coulomb_condition", "settings", "robots", "stops",
           "claim_of_runs", "relative_difference",
           "turns", "turns_covered", "tracking_error", "log_slope", "linear_fit_residual", "bisect_increasing"]
