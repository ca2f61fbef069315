"""robolib.stewart.drawing: the labelled mechanism drawing reads at its displayed size and refuses what is not a
platform, a pose or a label size."""

import pytest

from robolib import ParameterError, stewart
from robolib.stewart.drawing import stewart_mechanism

MODEL = stewart.load("stewart/tsai2000.yaml")


# ---- what the drawing shows ------------------------------------------------------------------------------------

def test_mechanism_labels_are_drawn_at_the_requested_size():
    fig = stewart_mechanism(MODEL, label_size=12)
    labels = [t for t in fig.axes[0].texts if t.get_text().startswith("$b_")]
    assert len(labels) == 6 and all(t.get_fontsize() == 12 for t in labels)


# ---- checks at the edge ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, name", [
    ({"model": None}, "model"),
    ({"label_size": -1}, "label_size"),
    ({"label_size": "x"}, "label_size"),
    ({"pose": [0.0, 0.0]}, "pose"),
])
def test_mechanism_names_the_bad_input(kwargs, name):
    args = {"model": MODEL} | kwargs
    with pytest.raises(ParameterError) as err:
        stewart_mechanism(args.pop("model"), **args)
    assert str(err.value).startswith(name + " ")


@pytest.mark.parametrize("file", ["stewart/tsai2000.yaml", "stewart/hydraulic.yaml"])
def test_joint_labels_do_not_overlap_and_the_slanted_z_axis_has_few_ticks(file):
    fig = stewart_mechanism(stewart.load(file))
    fig.draw_without_rendering()
    ax = fig.axes[0]
    boxes = [t.get_window_extent() for t in ax.texts if t.get_text().startswith(("$b_", "$P_"))]
    assert len(boxes) == 12
    for i, a in enumerate(boxes):
        assert not any(a.overlaps(b) for b in boxes[i + 1:]), i
    lo, hi = ax.get_zlim()
    assert 2 <= sum(lo <= v <= hi for v in ax.get_zticks()) <= 3
