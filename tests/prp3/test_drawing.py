"""robolib.prp3.drawing: the round-trip error figure draws what it is given and refuses what is not a round trip; the
workspace figure draws its 3-D ticks at the requested size and refuses a bad size or bad points."""

import numpy as np
import pytest

from robolib import ParameterError, prp3
from robolib.prp3.drawing import TICK_3D_PT, errors_figure, workspace_figure
from robolib.prp3.sampling import sample_inputs

GEOM = prp3.load_geometry("prp3/paper.yaml")


@pytest.fixture(scope="module")
def small_round_trip():
    rt = prp3.round_trip(GEOM, 20_000, seed=3)
    law = prp3.error_law(rt.distance[:, :2].ravel(), rt.error[:, :2].ravel(), draws=5, seed=1)
    return rt, law


# ---- what the figure shows ---------------------------------------------------------------------------------------

def test_errors_figure_draws_the_fit_the_prediction_and_the_comparison_line(small_round_trip):
    rt, law = small_round_trip
    fig = errors_figure(rt, law, comparison_exponent=0)
    labels = [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    assert any(lab.startswith("fit: exponent") for lab in labels)
    assert any("predicted" in lab for lab in labels)
    assert any("no growth" in lab for lab in labels)


# ---- checks at the edge --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs, name", [
    ((None, None), {}, "rt"),
    (("rt", None), {}, "law"),
    ((), {"far_len": -1.0}, "far_len"),
    ((), {"comparison_exponent": "x"}, "comparison_exponent"),
    ((), {"max_dots": 0}, "max_dots"),
])
def test_errors_figure_names_the_bad_input(small_round_trip, args, kwargs, name):
    rt, law = small_round_trip
    args = {(): (rt, law), (None, None): (None, None), ("rt", None): (rt, None)}[args]
    with pytest.raises(ParameterError) as err:
        errors_figure(*args, **kwargs)
    assert str(err.value).startswith(name + " ")


# ---- the workspace figure ------------------------------------------------------------------------------------------

POINTS = prp3.forward(GEOM, *sample_inputs(GEOM, 400, seed=2), errors="mask")
POINTS = POINTS[np.isfinite(POINTS).all(axis=1)]  # the reachable ones


def _3d_tick_sizes(fig):
    fig.draw_without_rendering()
    ax = next(a for a in fig.axes if a.name == "3d")
    return {t.get_fontsize() for axis in (ax.xaxis, ax.yaxis, ax.zaxis) for t in axis.get_ticklabels() if t.get_text()}


def test_workspace_figure_draws_its_3d_ticks_at_the_requested_size():
    assert _3d_tick_sizes(workspace_figure(POINTS, POINTS[:50])) == {TICK_3D_PT}
    assert _3d_tick_sizes(workspace_figure(POINTS, POINTS[:50], tick_size=12)) == {12}


#: A bad input, the parameter the error must name and what the reason must state (the valid range or shape, the
#: unit): tokens, not wording.
@pytest.mark.parametrize("kwargs, name, reason", [
    ({"tick_size": -1}, "tick_size", ("6", "30", "pt")),
    ({"tick_size": 100}, "tick_size", ("6", "30", "pt")),
    ({"tick_size": float("nan")}, "tick_size", ("6", "30", "pt")),
    ({"tick_size": "x"}, "tick_size", ("6", "30", "pt")),
    ({"max_all": 0}, "max_all", ("1",)),
    ({"points_all": [[1.0, 2.0]]}, "points_all", ("3",)),
    ({"points_mode": None}, "points_mode", ("None",)),
])
def test_workspace_figure_names_the_bad_input(kwargs, name, reason):
    args = {"points_all": POINTS, "points_mode": POINTS[:50]} | kwargs
    with pytest.raises(ParameterError) as err:
        workspace_figure(args.pop("points_all"), args.pop("points_mode"), **args)
    msg = str(err.value)
    assert msg.startswith(name + " ") and all(token in msg for token in reason), msg
