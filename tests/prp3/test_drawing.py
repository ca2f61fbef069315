"""robolib.prp3.drawing: the round-trip error figure draws what it is given and refuses what is not a round trip."""

import pytest

from robolib import ParameterError, prp3
from robolib.prp3.drawing import errors_figure

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
