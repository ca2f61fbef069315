"""Poincaré readings of a clearance joint (robolib.core.poincare): samples, the noise-tied period test, the ladder."""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import entry_point_tests
from hypothesis import strategies as st

from robolib import ParameterError
from robolib.core import poincare as P
from robolib.core.clearance import ClearanceModel, ClearanceSpec
from robolib.core.multibody import Body, ConstantSpeed, Driver, GroundPin, Mechanism, Pin
from robolib.core.nonlinear import PERIOD_K_MAX

# ---- a bob hung on a crank pin with clearance, the crank turning at W rad/s under gravity ------------------------
W = 6.0
CRANK = Mechanism([Body("crank", 0.5, 4e-4), Body("bob", 0.2, 1e-5)],
                  [GroundPin("O", "crank", (-0.05, 0.0), (0.0, 0.0)), Driver("m", "crank", ConstantSpeed(0.0, W)),
                   Pin("P", "crank", (0.05, 0.0), "bob", (0.0, 0.0))], gravity=(0.0, -9.81))
MODEL = ClearanceModel(CRANK, [ClearanceSpec("P", clearance=1e-4)])
Q0, QD0 = np.array([0.05, 0.0, 0.0, 0.1, 0.0, 0.0]), np.array([0.0, 0.3, W, 0.0, 0.6, 0.0])
T = 2 * np.pi / W


def test_the_bob_riding_the_crank_reads_period_one_and_its_samples_are_normalised():
    r = P.poincare_reading(MODEL, Q0, QD0, T, 1e-9, n_transient=4, n_samples=9)
    assert r.period == 1 and r.samples.shape == (9, 4)
    np.testing.assert_allclose(r.t, T * np.arange(4, 13))
    assert np.all(np.hypot(r.samples[:, 0], r.samples[:, 1]) < 1.1)     # e / c: inside the clearance, or just in contact
    assert r.period_tol == pytest.approx(P.PERIOD_TOL_FACTOR * r.noise)
    assert r.residuals.shape == (3,) and r.residuals[0] < r.period_tol    # k_max = n_samples // 3


def test_the_noise_of_one_return_falls_with_the_tolerance():
    loose, tight = (P.poincare_reading(MODEL, Q0, QD0, T, rtol, n_transient=2, n_samples=3) for rtol in (1e-7, 1e-10))
    assert tight.noise < loose.noise / 10


def test_a_sampling_period_that_is_not_the_drive_s_reads_no_period():
    """Sampled every 0.7 turns, the same periodic motion does not repeat at any lag up to k_max."""
    r = P.poincare_reading(MODEL, Q0, QD0, 0.7 * T, 1e-9, n_transient=4, n_samples=24, k_max=4)
    assert r.period == 0 and np.all(r.residuals > r.period_tol)


def test_the_ladder_confirms_the_period_read_at_its_two_tightest_tolerances():
    lad = P.ladder_reading(MODEL, Q0, QD0, T, rtols=[1e-8, 1e-9, 1e-10], n_transient=4, n_samples=9, progress=False)
    assert (lad.kind, lad.k) == ("confirmed", 1)
    assert [r.rtol for r in lad.readings] == [1e-8, 1e-9, 1e-10]
    assert lad.summary().startswith("confirmed period 1")


def test_the_ladder_refuses_tolerances_out_of_order_before_any_run():
    with pytest.raises(ParameterError, match="rtols"):
        P.ladder_reading(MODEL, Q0, QD0, T, rtols=[1e-10, 1e-8], progress=False)
    with pytest.raises(ParameterError, match="cm"):
        P.ladder_reading(CRANK, Q0, QD0, T, progress=False)


BAD_MODEL = st.sampled_from([None, CRANK, "model"])
ENTRY_POINTS = {
    "poincare_reading": (P.poincare_reading, dict(cm=MODEL, q0=Q0, qd0=QD0, period=T, rtol=1e-6, n_transient=1,
                                                  n_samples=3, joint=0, atol=None, k_max=None),
                         {"cm": BAD_MODEL,
                          "q0": st.sampled_from([None, np.zeros(5), np.full(6, np.nan)]),
                          "qd0": st.sampled_from([None, np.zeros(7), "x"]),
                          "period": "positive",
                          "rtol": st.sampled_from([0.0, 1.0, -1e-8, np.nan, "1e-8"]),
                          "n_transient": st.sampled_from([-1, 1.5, "2", None]),
                          "n_samples": st.sampled_from([2, 0, 1.5, None]),
                          "joint": st.sampled_from([-1, 1, 0.5, None]),
                          "atol": st.sampled_from([0.0, -1.0, np.nan, "x"]),
                          "k_max": st.sampled_from([0, 3, 1.5, "2"])}),
    "ladder_reading": (P.ladder_reading, dict(cm=MODEL, q0=Q0, qd0=QD0, period=T, rtols=(1e-6, 1e-7), n_transient=1,
                                              n_samples=3, joint=0, progress=False),
                       {"cm": BAD_MODEL,
                        "q0": st.sampled_from([None, np.zeros(5)]),
                        "qd0": st.sampled_from([None, np.zeros(7)]),
                        "period": "positive",
                        "rtols": st.sampled_from([[1e-8], [1e-8, 1e-7], [1e-8, 1.0], [1e-8, 0.0], "x"]),
                        "n_transient": st.sampled_from([-1, 1.5]),
                        "n_samples": st.sampled_from([2, 1.5]),
                        "joint": st.sampled_from([-1, 1]),
                        "progress": st.sampled_from([None, "yes", 2])}),
}
NOT_FUZZED = {"PoincareReading": "result record", "LadderReading": "result record"}

test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


def test_the_table_covers_every_public_function():
    public = {n for n in P.__all__ if callable(getattr(P, n))} - set(NOT_FUZZED)
    assert public == set(ENTRY_POINTS)
    assert PERIOD_K_MAX >= 3
