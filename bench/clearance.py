"""Benchmark of the gear-shift clearance study (issues 5, 11, 20).

Measures the wall time of 1 s of gear-shift motion with one clearance joint (B1) at
the default (converged) tolerance of ``data/gearshift/default.yaml`` with the fast
minimal-coordinate model (:class:`robolib.gearshift.fast.FastClearance`; target: at
most 0.25 s on one core, issue 20, moonshot 0.1 s) and with the seed's Baumgarte DAE
(the reference), the steps each takes and their ratio, the DAE at rtol 1e-6
for comparison, the ideal model, the cost of one right-hand-side evaluation
(numpy reference vs the compiled kernel), and the speed-up of a small Poincaré
sweep on 2 joblib processes and on a 2-worker Dask LocalCluster over 1 process.
Run: ``python -m bench clearance``.
"""

from __future__ import annotations

import functools
import os
import statistics
import time

import numpy as np

TARGET_CLEARANCE_1S_WALL_S = 0.25


def _median_time(fn, repeats, best=None):
    """Median wall time of ``repeats`` calls (and, into ``best`` if given, the fastest one)."""
    times = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    if best is not None:
        best.append(min(times))
    return statistics.median(times), out


def _rhs_cost_us(f, t, y, n=2000):
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            f(t, y)
        samples.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(samples)


def run() -> dict:
    from robolib import gearshift as G
    from robolib import nonlinear as N
    from robolib.core.multibody import resolve_backend
    from robolib.gearshift.fast import FastClearance

    backend = resolve_backend("auto")
    gs = G.build_gearshift()
    cm = G.clearance_model(gs)
    fc = FastClearance(gs.params)
    # warm-up: compile / load the cached kernels
    G.simulate_clearance(gs, 0.005, cmodel=cm)
    G.simulate_ideal(gs, 0.01)
    fc.simulate((0.0, 0.005))

    best_fast, cpu_fast = [], []

    def fast_run():
        c0 = time.process_time()
        r = fc.simulate((0.0, 1.0))
        cpu_fast.append(time.process_time() - c0)
        return r

    t_fast, res_fast = _median_time(fast_run, 7, best_fast)
    # the same work as the DAE at its rtol: the chapter's engine runs the fast model at rtol / FAST_TOLERANCE_DIVISOR
    from robolib.gearshift.runs import FAST_TOLERANCE_DIVISOR, engine_tolerances

    rt_eq, at_eq = engine_tolerances("fast", gs.params["solver"]["rtol"], gs.params["solver"]["atol"])
    t_eq, res_eq = _median_time(lambda: fc.simulate((0.0, 1.0), rtol=rt_eq, atol=at_eq), 5)
    best = []
    t_cl, (_, res) = _median_time(lambda: G.simulate_clearance(gs, 1.0, cmodel=cm), 5, best)
    t_cl6, (_, res6) = _median_time(lambda: G.simulate_clearance(gs, 1.0, cmodel=cm, rtol=1e-6, atol=1e-9), 5)
    rtol_def = gs.params["solver"]["rtol"]
    t_id, res_id = _median_time(lambda: G.simulate_ideal(gs, 1.0), 5)

    q, qd, _ = gs.ideal_state(0.37)
    y = np.concatenate([q, qd, [0.0, 0.0]])
    y[3] += 1.02e-4  # journal in contact
    cm.ddelta0[:] = 0.05
    us_np = _rhs_cost_us(cm.rhs("numpy"), 0.37, y, 300)
    us_nb = _rhs_cost_us(cm.rhs("numba"), 0.37, y) if backend == "numba" else float("nan")

    # sweep speed-up: 4 independent short Poincaré runs, serial vs 2 processes
    params = G.load_parameters()
    task = functools.partial(G.poincare_run, params, clearance=5e-4, n_transient=4, n_samples=4)
    freqs = [6.0, 7.0, 8.0, 9.0, 10.0, 11.0]
    warm = functools.partial(G.poincare_run, params, clearance=5e-4, n_transient=0, n_samples=2)
    N.sweep(warm, [40.0] * 4, n_jobs=2)  # start the worker pool and load the compiled kernels there
    t1 = time.perf_counter()
    _, serial = N.sweep(task, freqs, n_jobs=1)
    t_serial = time.perf_counter() - t1
    t1 = time.perf_counter()
    _, par = N.sweep(task, freqs, n_jobs=2)
    t_par = time.perf_counter() - t1
    same = all(np.allclose(a.e_local, b.e_local, atol=1e-12) for a, b in zip(serial, par))
    t_dask = float("nan")
    same_dask = False
    try:
        from dask.distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc, \
                Client(lc) as client:
            N.sweep(warm, [40.0] * 4, backend="dask", client=client)  # load the kernels in the workers
            t1 = time.perf_counter()
            _, dres = N.sweep(task, freqs, backend="dask", client=client)
            t_dask = time.perf_counter() - t1
        same_dask = all(np.array_equal(a.e_local, b.e_local) for a, b in zip(serial, dres))
    except ImportError:  # pragma: no cover
        pass

    print(f"gear-shift, 1 s of motion, one clearance joint ({backend} kernel):")
    print(f"  fast model      : {t_fast:8.3f} s wall at rtol {rtol_def:g}  (target <= {TARGET_CLEARANCE_1S_WALL_S:g} s, "
          f"{t_fast / TARGET_CLEARANCE_1S_WALL_S:.2f} of target; fastest of 7: {best_fast[0]:.3f} s; "
          f"CPU {min(cpu_fast):.3f} s)")
    print(f"                    {res_fast.n_steps} accepted steps, {res_fast.n_rejected} rejected/redone, "
          f"{res_fast.n_rhs} RHS calls, {len(res_fast.episodes)} contact episodes, "
          f"{1e6 * t_fast / res_fast.n_rhs:.2f} us per RHS call all-in")
    print(f"  fast, same work : {t_eq:8.3f} s wall at rtol {rt_eq:g} = rtol / {FAST_TOLERANCE_DIVISOR:g}, the DAE's accuracy "
          f"at rtol {rtol_def:g} ({res_eq.n_steps} steps; DAE / fast = {t_cl / t_eq:.1f}x)")
    print(f"  DAE (reference) : {t_cl:8.3f} s wall at rtol {rtol_def:g}  (fastest of 5: {best[0]:.3f} s; "
          f"DAE / fast = {t_cl / t_fast:.1f}x median, {best[0] / best_fast[0]:.1f}x fastest; "
          f"steps DAE / fast = {res.n_steps / res_fast.n_steps:.2f})")
    print(f"                    {res.n_steps} accepted steps, {res.n_rejected} rejected/redone, {res.n_rhs} RHS calls, "
          f"{len(res.episodes[0])} contact episodes, {1e6 * t_cl / res.n_rhs:.1f} us per RHS call all-in")
    print(f"  DAE             : {t_cl6:8.3f} s wall at rtol 1e-6 ({res6.n_steps} steps)")
    print(f"  ideal model     : {t_id:8.3f} s wall   ({res_id.n_steps} steps; clearance/ideal = {t_cl / t_id:.0f}x)")
    print(f"  one RHS call    : numpy {us_np:7.1f} us   compiled {us_nb:6.1f} us   (ratio {us_np / us_nb:.1f}x)")
    print(f"sweep of {len(freqs)} Poincare runs: 1 process {t_serial:.2f} s, 2 processes {t_par:.2f} s, "
          f"speed-up {t_serial / t_par:.2f}x on {os.cpu_count()} cores (results identical: {same}); "
          f"Dask 2 workers {t_dask:.2f} s, speed-up {t_serial / t_dask:.2f}x (identical: {same_dask})")
    return {
        "gearshift_clearance_1s_wall_s": float(t_fast),
        "gearshift_clearance_1s_wall_s_fastest": float(best_fast[0]),
        "gearshift_clearance_1s_cpu_s_fastest": float(min(cpu_fast)),
        "gearshift_clearance_1s_steps": float(res_fast.n_steps),
        "gearshift_clearance_1s_wall_s_same_accuracy": float(t_eq),
        "gearshift_clearance_dae_over_fast_same_accuracy": float(t_cl / t_eq),
        "gearshift_clearance_dae_1s_wall_s": float(t_cl),
        "gearshift_clearance_dae_1s_wall_s_fastest": float(best[0]),
        "gearshift_clearance_dae_1s_steps": float(res.n_steps),
        "gearshift_clearance_dae_over_fast": float(t_cl / t_fast),
        "gearshift_clearance_dae_1s_wall_s_rtol1e-6": float(t_cl6),
        "gearshift_clearance_dae_1s_steps_rtol1e-6": float(res6.n_steps),
        "gearshift_ideal_1s_wall_s": float(t_id),
        "sweep_speedup_dask_2workers": float(t_serial / t_dask),
        "sweep_speedup_2proc": float(t_serial / t_par),
    }


if __name__ == "__main__":  # pragma: no cover
    print(run())
