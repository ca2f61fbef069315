"""The parameter tables and the Explore panel helper (robolib.book.notebook)."""

from __future__ import annotations

import math

import pytest

from robolib import ParameterError
from robolib.book.notebook import explore, parameter_table, yaml_parameter_rows

# ==== parameter tables and Explore panels ===========================================================================

def test_parameter_rows_carry_every_leaf_with_its_unit_comment():
    rows = dict((n, (v, c)) for n, v, c in yaml_parameter_rows("redundant/default.yaml"))
    assert rows["friction.mu"][0] == "0.1" and rows["end_effector_mass"][1].startswith("kg")
    assert "active.mass" in rows and "base" in rows
    table = parameter_table(["prp3/paper.yaml"], run={"seed": 3}, extra=[("rtol", 1e-8, "solver")])
    assert "| `l2` | 500 | rod length" in table and "| `seed` | 3 | notebook parameter |" in table
    assert "| `rtol` | 1e-08 | solver |" in table


def test_static_explore_panel_precomputes_the_grid_and_links_sliders_to_stacks():
    import ipywidgets as widgets
    import matplotlib
    from ipywidgets.widgets.widget_link import Link

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    calls = []

    def draw(a, b):
        calls.append((a, b))
        fig, ax = plt.subplots(figsize=(2, 1.5))
        ax.plot([0, 1], [0, a * b])
        return fig

    box = explore(draw, {"a": [1.0, 2.0, 3.0], "b": [1, 2]},
                  labels={"a": "a [m]"}, initial={"a": 2.0}, mode="static")
    assert sorted(calls) == [(a, b) for a in (1.0, 2.0, 3.0) for b in (1, 2)], "every grid point drawn once"
    note, sa, sb, outer = box.children
    assert isinstance(sa, widgets.SelectionSlider) and sa.value == 2.0 and sb.value == 2, "middle value by default"
    assert isinstance(outer, widgets.Stack) and len(outer.children) == 3 and outer.selected_index == 1
    inner = outer.children[2]
    leaf = inner.children[0]
    assert "a [m] = 3, b = 1" in leaf.children[0].value
    img = leaf.children[1]
    assert isinstance(img, widgets.HTML) and img.value.startswith('<img src="data:image/png;base64,'), "an image"
    assert 'alt="' in img.value and "a [m] = 3, b = 1" in img.value.split('alt="')[1], "alt text names the values"
    assert "Precomputed for a [m] ∈ {1, 2, 3}; b ∈ {1, 2}" in note.value
    from ipywidgets.widgets.widget import _instances

    links = [w for w in _instances.values() if isinstance(w, Link)]
    assert any(l.source == (sa, "index") and l.target == (outer, "selected_index") for l in links)
    assert sum(l.source == (sb, "index") for l in links) >= 3, "slider b drives the stack under each value of a"
    with pytest.raises(ParameterError, match="exceed"):
        explore(draw, {"a": list(range(20)), "b": list(range(20))}, mode="static")


def test_live_explore_panel_recomputes_for_any_value():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seen = []

    def draw(a):
        seen.append(a)
        return plt.figure()

    box = explore(draw, {"a": [0.0, 1.0, 2.0]}, mode="live")
    slider = box.children[1]
    slider.value = 1.37
    assert math.isclose(seen[-1], 1.37), "an off-grid value is recomputed"



def test_a_live_slider_spans_the_physical_range_with_the_digits_its_step_needs():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    box = explore(lambda dz: plt.figure(), {"dz": [0.0, 0.3, 0.6]}, ranges={"dz": (-0.1, 0.6, 0.001)}, mode="live")
    slider = box.children[1]
    assert (slider.min, slider.max, slider.step) == (-0.1, 0.6, 0.001)
    assert slider.readout_format == ".3f"                    # 0.006 m reads 0.006, not 0.01
    assert slider.style.description_width == "initial"      # the label is shown in full


def test_a_live_slider_over_decades_is_logarithmic():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    box = explore(lambda kp: plt.figure(), {"kp": [300.0, 1200.0]}, ranges={"kp": (10.0, 1e5, "log")},
                  initial={"kp": 1200.0}, mode="live")
    slider = box.children[1]
    assert type(slider).__name__ == "FloatLogSlider"
    assert (slider.min, slider.max, slider.value) == (1.0, 5.0, 1200.0)
