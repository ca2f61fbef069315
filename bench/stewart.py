"""Benchmark of the Stewart study: one model evaluation, batch throughput, 15-s closed loop.

    python -c "import bench.stewart as b; print(b.run())"

Figures (``tsai2000`` parameter set, one core):

* ``stewart_ne_eval_us`` / ``stewart_vw_eval_us``: median wall time of one
  ``inverse_dynamics`` call (public API, one state) with the U-joint
  Newton-Euler / virtual-work model;
* ``stewart_ne_batch_states_per_s``: NE inverse dynamics of 100 000 states in one call;
* ``stewart_sim15_ne_s`` / ``stewart_sim15_vw_s``: wall time of the 15-s
  closed-loop simulation (ID-PID, 1 kHz RK4, NE plant) with an NE / VW controller
  (the tracking experiment: the faithful plant, two controller models);
* ``stewart_run15_ne_s`` / ``stewart_run15_vw_s``: the same 15-s run with each
  model as the whole simulation, plant and controller (what the patent timed;
  target at most 1.5 s each);
* ``stewart_aswritten_ne_eval_us`` / ``stewart_aswritten_vw_eval_us``: one
  inverse-dynamics evaluation of each derivation written in plain numpy, step by
  step (:mod:`robolib.stewart.aswritten`), median;
* ``stewart_pinocchio_eval_us``: the pinocchio reference's constrained inverse
  dynamics for one state (median).

The patent reports 17.698 s (NE) and 551.098 s (VW) for its 15-s run, a
SolidWorks-MATLAB co-simulation on an Intel 2.30 GHz machine with 8 GB RAM.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from robolib import stewart

PATENT_NE_S = 17.698
PATENT_VW_S = 551.098


def _median_us(fn, repeats: int = 7, number: int = 200) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times) * 1e6


def run() -> dict:
    m = stewart.load("stewart/tsai2000.yaml")
    rng = np.random.default_rng(0)
    X = m.home_pose + rng.uniform(-0.1, 0.1, 6)
    V, dV = rng.normal(size=6), rng.normal(size=6)

    t0 = time.perf_counter()
    for method in ("newton_euler", "virtual_work"):
        stewart.inverse_dynamics(m, X, V, dV, method=method)
    stewart.simulate(m, duration=0.002)
    print(f"warm-up (numba compile or cache load): {time.perf_counter() - t0:.2f} s")

    ne_us = _median_us(lambda: stewart.inverse_dynamics(m, X, V, dV, method="newton_euler"))
    vw_us = _median_us(lambda: stewart.inverse_dynamics(m, X, V, dV, method="virtual_work"))
    print(f"one inverse-dynamics evaluation: NE {ne_us:7.1f} us   VW {vw_us:7.1f} us   "
          f"(target < 100 us; VW/NE = {vw_us / ne_us:.2f})")
    from robolib.stewart import _kernels

    x1, v1, d1, f1, st1 = X[None].copy(), V[None].copy(), dV[None].copy(), np.empty((1, 6)), np.zeros(1, np.int64)
    raw = {code: _median_us(lambda c=code: _kernels.inverse_dynamics_batch(m.packed, c, x1, v1, d1, f1, st1),
                            number=2000) for code in (0, 1)}
    print(f"  compiled kernel alone (no argument checks): NE {raw[0]:5.2f} us   VW {raw[1]:5.2f} us   "
          f"(VW/NE = {raw[1] / raw[0]:.2f})")
    np_us = _median_us(lambda: stewart.inverse_dynamics_numpy(m, X, V, dV), repeats=5, number=50)
    print(f"  same NE written in numpy, vectorised over the 6 legs: {np_us:7.1f} us "
          f"({np_us / ne_us:.0f}x the compiled kernel; why the kernels are compiled)")

    n = 100_000
    Xb = m.home_pose + rng.uniform(-0.1, 0.1, (n, 6))
    Vb, dVb = rng.normal(size=(n, 6)), rng.normal(size=(n, 6))
    stewart.inverse_dynamics(m, Xb[:10], Vb[:10], dVb[:10])
    t0 = time.perf_counter()
    stewart.inverse_dynamics(m, Xb, Vb, dVb)
    batch = n / (time.perf_counter() - t0)
    print(f"batched NE inverse dynamics: {batch:,.0f} states/s ({1e6 / batch:.2f} us/state)")

    sims = {}
    for ctrl in ("newton_euler", "virtual_work"):
        res = stewart.simulate(m, controller=ctrl, duration=15.0, step=1e-3)
        sims[ctrl] = res.wall_time
        rms = np.sqrt(np.mean(res.error[-5000:] ** 2))
        print(f"15-s closed loop, {ctrl:12s} controller: {res.wall_time:6.2f} s wall "
              f"= {res.real_time_factor:5.1f}x real time (target >= 10x); RMS leg error, last 5 s {rms:.2e} m")
    runs = {}
    for meth in ("newton_euler", "virtual_work"):
        res = stewart.simulate(m, controller=meth, plant=meth, duration=15.0, step=1e-3)
        runs[meth] = res.wall_time
        print(f"15-s run, {meth:12s} as plant and controller: {res.wall_time:6.2f} s wall (target <= 1.5 s)")
    print(f"patent (SolidWorks-MATLAB co-simulation, Intel 2.30 GHz, 8 GB): NE {PATENT_NE_S} s, VW {PATENT_VW_S} s, "
          f"ratio {PATENT_VW_S / PATENT_NE_S:.1f}x;  here: ratio VW/NE {runs['virtual_work'] / runs['newton_euler']:.2f}x "
          f"(each model as the whole simulation), {sims['virtual_work'] / sims['newton_euler']:.2f}x (NE plant)")
    from robolib.stewart import aswritten

    aw = {meth: _median_us(lambda mm=meth: aswritten.inverse_dynamics_aswritten(m, X, V, dV, mm), repeats=5,
                           number=20) for meth in ("newton_euler", "virtual_work")}
    print(f"as written in plain numpy, one inverse-dynamics evaluation: NE {aw['newton_euler']:8.0f} us   "
          f"VW {aw['virtual_work']:8.0f} us   (VW/NE = {aw['virtual_work'] / aw['newton_euler']:.2f})")

    try:
        from robolib.stewart.pinocchio_ref import PinocchioStewart

        ref = PinocchioStewart(m)
        ref.inverse_dynamics(X, V, dV)
        pin_us = _median_us(lambda: ref.inverse_dynamics(X, V, dV), repeats=5, number=50)
        print(f"pinocchio constrained inverse dynamics (reference, Python glue): {pin_us:7.1f} us "
              f"= {pin_us / ne_us:.0f}x one NE evaluation")
    except ImportError:  # pragma: no cover
        pin_us = float("nan")
        print("pinocchio not installed: reference timing skipped")

    return {
        "stewart_ne_eval_us": ne_us,
        "stewart_vw_eval_us": vw_us,
        "stewart_ne_batch_states_per_s": batch,
        "stewart_sim15_ne_s": sims["newton_euler"],
        "stewart_sim15_vw_s": sims["virtual_work"],
        "stewart_run15_ne_s": runs["newton_euler"],
        "stewart_run15_vw_s": runs["virtual_work"],
        "stewart_aswritten_ne_eval_us": aw["newton_euler"],
        "stewart_aswritten_vw_eval_us": aw["virtual_work"],
        "stewart_pinocchio_eval_us": pin_us,
    }


if __name__ == "__main__":
    print(run())
