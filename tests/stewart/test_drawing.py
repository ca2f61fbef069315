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


@pytest.mark.parametrize("file", ["stewart/tsai2000.yaml", "stewart/hydraulic.yaml"])
def test_joint_labels_keep_off_the_legs_and_the_u_axes_are_long_enough_to_see(file):
    """No joint label covers any point of a leg as drawn on the screen, and each U axis a_i is drawn half a leg
    long (a fixed fraction of the mean leg length)."""
    import numpy as np
    from mpl_toolkits.mplot3d import proj3d

    from robolib.stewart import drawing
    from robolib.stewart.kinematics import joint_points, leg_geometry

    model = stewart.load(file)
    fig = stewart_mechanism(model)
    fig.draw_without_rendering()
    ax = fig.axes[0]
    B, P = joint_points(model, model.home_pose)
    u = np.linspace(0.0, 1.0, 60)[:, None]
    pts = np.vstack([B[i] + u * (P[i] - B[i]) for i in range(6)])
    xs, ys, _ = proj3d.proj_transform(*pts.T, ax.get_proj())
    screen = ax.transData.transform(np.c_[xs, ys])
    labels = [t for t in ax.texts if t.get_text().startswith(("$b_", "$P_"))]
    assert len(labels) == 12
    for t in labels:
        box = t.get_window_extent()
        inside = (screen[:, 0] > box.x0) & (screen[:, 0] < box.x1) & (screen[:, 1] > box.y0) & (screen[:, 1] < box.y1)
        assert not inside.any(), t.get_text()
    mean_leg = leg_geometry(model, model.home_pose).length.mean()
    green = [ln for ln in ax.lines if ln.get_color() == drawing.COLORS["uaxis"]]
    assert len(green) == 6
    for ln in green:
        x, y, z = ln.get_data_3d()
        length = np.linalg.norm([x[1] - x[0], y[1] - y[0], z[1] - z[0]])
        assert length == pytest.approx(2 * drawing.UAXIS * mean_leg) and length >= 0.4 * mean_leg
