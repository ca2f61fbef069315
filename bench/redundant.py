"""Benchmark of the redundant planar robot (issue 4): one forward-dynamics evaluation and a
10-s simulation per friction model (target: under 2 s wall time each).

The simulation starts on the reference circle and is driven by the friction-free
inverse-dynamics torques (a periodic spline, built once and not timed), with the
default fixed-step RK4 integrator (``redundant.DT``) and Baumgarte stabilisation.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from robolib import redundant

TARGET_SIM_S = 2.0


def _median_us(f, number=300, repeat=7) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            f()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times) * 1e6


def run() -> dict:
    robot = redundant.load("redundant/default.yaml")
    q, dq, _ = redundant.reference_motion(robot, [0.3])
    tau = redundant.inverse_dynamics(robot, q, dq, redundant.reference_motion(robot, [0.3])[2]).tau[0]
    q0, dq0 = q[0], dq[0]
    out = {}

    print("forward dynamics, one evaluation (median of 7 x 300 calls):")
    fd = {}
    for friction in redundant.FRICTION_MODELS:
        fd[friction] = _median_us(lambda: redundant.forward_dynamics(robot, q0, dq0, tau, friction=friction))
    for method in ("multipliers", "udwadia_kalaba", "sequential"):
        fd[method] = _median_us(lambda: redundant.forward_dynamics(robot, q0, dq0, tau, method=method), number=100)
    base = fd[None]
    for key, us in fd.items():
        label = f"friction={key}" if key in redundant.FRICTION_MODELS else f"method={key} (12-coord.)"
        print(f"   {label:34s} {us:8.1f} us   ({us / base:4.1f} x the default)")
    out["redundant_fd_eval_us"] = base

    t0 = time.perf_counter()
    sched = redundant.reference_torque(robot)
    print(f"reference torque schedule (400 inverse-dynamics samples): {time.perf_counter() - t0:.2f} s (not counted)")
    start_q, start_dq, _ = redundant.reference_motion(robot, [0.0])
    print(f"10-s simulation, RK4 dt = {redundant.DT * 1e3:g} ms (target < {TARGET_SIM_S:g} s):")
    for friction in redundant.FRICTION_MODELS:
        t0 = time.perf_counter()
        sim = redundant.simulate(robot, start_q[0], start_dq[0], sched, 10.0, friction=friction, record_every=5)
        wall = time.perf_counter() - t0
        dev = np.abs(sim.end_effector - redundant.reference_circle(robot, sim.t).p).max()
        name = "none" if friction is None else friction
        out[f"redundant_sim10_s_{name}"] = wall
        print(f"   {name:20s} {wall:6.2f} s  ({wall / TARGET_SIM_S:4.2f} of target)   "
              f"path deviation {dev * 1e3:7.3f} mm, dissipated {sim.dissipated_energy[-1] * 1e3:6.2f} mJ, "
              f"drift {sim.drift.max():.1e} m")
    print("10-s simulation, adaptive DOP853 (rtol 1e-6, atol 1e-9), for comparison:")
    for friction in redundant.FRICTION_MODELS:
        t0 = time.perf_counter()
        redundant.simulate(robot, start_q[0], start_dq[0], sched, 10.0, friction=friction, integrator="adaptive",
                           rtol=1e-6, atol=1e-9, dt=0.02)
        wall = time.perf_counter() - t0
        print(f"   {str(friction):20s} {wall:6.2f} s  ({wall / TARGET_SIM_S:4.2f} of target)")
    return out


if __name__ == "__main__":
    print(run())
