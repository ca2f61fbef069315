"""3-PRP round trip: vectorised numpy vs a plain Python loop over the same formulas."""

from __future__ import annotations

import math
import time

import numpy as np

from robolib import prp3

N_VECTOR = 1_000_000
N_LOOP = 10_000
TARGET_S = 2.0


def roundtrip_vectorised(geom, lx, ly, theta):
    """FK then IK (default mode) of every input, as one batch."""
    P = prp3.forward(geom, lx, ly, theta, errors="mask")
    return prp3.inverse(geom, P, errors="mask", limits=False)


def roundtrip_python(geom, lx, ly, theta):
    """The same trilateration and closed-form IK, one sample at a time with ``math``."""
    l0, l1, l2, r, h = geom.l0, geom.l1, geom.l2, geom.r, geom.h
    s = math.sqrt(0.5)
    s1, s2, s3 = prp3.DEFAULT_MODE
    out = []
    for a, b, t in zip(lx.tolist(), ly.tolist(), theta.tolist()):
        p1 = ((a - r) * s, -(a - r) * s, 0.0)
        p2 = ((b - r) * s, (b - r) * s, 0.0)
        p3 = (l0 + l1 * math.cos(t) - r, 0.0, h + l1 * math.sin(t))
        e21 = [p2[i] - p1[i] for i in range(3)]
        d = math.sqrt(sum(v * v for v in e21))
        ex = [v / d for v in e21]
        e31 = [p3[i] - p1[i] for i in range(3)]
        i_ = sum(ex[k] * e31[k] for k in range(3))
        eyr = [e31[k] - i_ * ex[k] for k in range(3)]
        j = math.sqrt(sum(v * v for v in eyr))
        ey = [v / j for v in eyr]
        ez = [ex[1] * ey[2] - ex[2] * ey[1], ex[2] * ey[0] - ex[0] * ey[2], ex[0] * ey[1] - ex[1] * ey[0]]
        x = 0.5 * d
        y = (i_ * i_ + j * j - 2 * i_ * x) / (2 * j)
        z2 = l2 * l2 - x * x - y * y
        if z2 < 0:
            out.append((math.nan, math.nan, math.nan))
            continue
        z = math.sqrt(z2) * (-1.0 if ez[2] > 0 else 1.0)
        J = [p1[k] + x * ex[k] + y * ey[k] + z * ez[k] for k in range(3)]
        q = []
        for u, sig in (((s, -s, 0.0), s1), ((s, s, 0.0), s2)):
            w = [J[k] + r * u[k] for k in range(3)]
            bb = sum(w[k] * u[k] for k in range(3))
            disc = bb * bb - sum(v * v for v in w) + l2 * l2
            q.append(bb + sig * math.sqrt(disc) if disc >= 0 else math.nan)
        w = (J[0] + r - l0, J[1], J[2] - h)
        rho = math.hypot(w[0], w[2])
        k3 = (sum(v * v for v in w) + l1 * l1 - l2 * l2) / (2 * l1)
        th = math.atan2(w[2], w[0]) + s3 * math.acos(k3 / rho) if abs(k3) <= rho else math.nan
        q.append(math.pi - math.fmod(math.pi - th + 4 * math.pi, 2 * math.pi))
        out.append(tuple(q))
    return out


def run() -> dict:
    geom = prp3.Geometry()
    lx, ly, theta = prp3.sample_inputs(geom, N_VECTOR, seed=0)
    roundtrip_vectorised(geom, lx[:1000], ly[:1000], theta[:1000])  # warm-up
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        q = roundtrip_vectorised(geom, lx, ly, theta)
        times.append(time.perf_counter() - t0)
    t_vec = min(times)
    t0 = time.perf_counter()
    q_loop = roundtrip_python(geom, lx[:N_LOOP], ly[:N_LOOP], theta[:N_LOOP])
    t_loop = time.perf_counter() - t0
    # the two implementations must agree, or the timing compares different work
    diff = np.nanmax(np.abs(np.array(q_loop) - np.stack(q, -1)[:N_LOOP]))
    per_vec_us = t_vec / N_VECTOR * 1e6
    per_loop_us = t_loop / N_LOOP * 1e6
    print(f"  3-PRP FK+IK round trip, numpy, {N_VECTOR:.0e} samples : {t_vec:8.3f} s  ({per_vec_us:.3f} us/sample)"
          f"  target < {TARGET_S} s: {'met' if t_vec < TARGET_S else 'MISSED'}")
    print(f"  same formulas, plain Python loop, {N_LOOP:.0e} samples: {t_loop:8.3f} s  ({per_loop_us:.3f} us/sample)")
    print(f"  per-sample ratio loop / numpy: {per_loop_us / per_vec_us:.0f}x   (max |difference| {diff:.1e})")
    return {"prp3_roundtrip_1e6_s": t_vec, "prp3_python_loop_per_sample_us": per_loop_us}
