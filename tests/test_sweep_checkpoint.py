"""Long sweeps survive interruption: a sweep started again with its checkpoint computes only what is missing."""

from __future__ import annotations

import pickle

import pytest

from robolib import ParameterError
from robolib import nonlinear as N

CALLS: list = []


def square_or_stop(v):
    """v**2, recording the call; raises at v == 7 while STOP is set (the interruption)."""
    CALLS.append(v)
    if v == 7 and STOP[0]:
        raise KeyboardInterrupt("killed at 70 %")
    return v * v


STOP = [True]


def test_an_interrupted_sweep_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    ckpt = tmp_path / "sweep.ckpt"
    values = list(range(10))
    CALLS.clear()
    STOP[0] = True
    with pytest.raises(KeyboardInterrupt):
        N.sweep(square_or_stop, values, checkpoint=ckpt)
    saved = pickle.loads(ckpt.read_bytes())
    assert sorted(saved["done"]) == [0, 1, 2, 3, 4, 5], "the finished batches are kept"
    CALLS.clear()
    STOP[0] = False
    got, res = N.sweep(square_or_stop, values, checkpoint=ckpt)
    assert res == [v * v for v in values] and got == values
    assert CALLS == [6, 7, 8, 9], "only the missing points are computed again"
    assert not ckpt.exists(), "a completed sweep removes its checkpoint"


def test_a_checkpoint_of_another_sweep_is_refused(tmp_path):
    ckpt = tmp_path / "sweep.ckpt"
    STOP[0] = True
    with pytest.raises(KeyboardInterrupt):
        N.sweep(square_or_stop, list(range(10)), checkpoint=ckpt)
    with pytest.raises(ParameterError, match="belongs to another sweep"):
        N.sweep(square_or_stop, list(range(12)), checkpoint=ckpt)
    with pytest.raises(ParameterError, match="belongs to another sweep"):
        N.sweep(square_or_stop, list(range(10)), checkpoint=ckpt, checkpoint_key="other settings")
    ckpt.write_bytes(b"\x80\x05truncated")
    with pytest.raises(ParameterError, match="cannot be read"):
        N.sweep(square_or_stop, list(range(10)), checkpoint=ckpt)


def test_a_checkpointed_sweep_on_two_processes_gives_the_plain_result(tmp_path):
    values = [0.5 * k for k in range(9)]
    assert N.sweep(abs, values, n_jobs=2, checkpoint=tmp_path / "c.ckpt")[1] == N.sweep(abs, values)[1]


def test_checkpoint_batches_follow_the_workers():
    from robolib.core.nonlinear import _workers

    assert _workers(1, None, None) == 1 and _workers(3, None, None) == 3 and _workers(None, None, None) >= 1
