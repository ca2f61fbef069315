"""The claims register, the parameter tables and the Explore panel helper (robolib.book.claims, robolib.book.notebook)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from robolib import ParameterError
from robolib.book.claims import ClaimsRegister, extract, from_notebook, main
from robolib.book.notebook import explore, parameter_table, yaml_parameter_rows


def _reg():
    return ClaimsRegister("demo", source="003", glue=False)


def test_a_failing_claim_is_marked_where_the_prose_cites_it():
    reg = _reg()
    ok = reg.claim("ok", "error below 1e-9", value=np.float64(1e-11), criterion="< 1e-9", holds=np.bool_(True),
                   text="1e-11 mm")
    bad = reg.claim("bad", "slope -1/2", value=-1.4, criterion="|s + 0.5| < 0.1", holds=False)
    assert ok.markdown() == "1e-11 mm"
    assert "⚠" in bad.markdown() and "bad" in bad.markdown() and "|s + 0.5| < 0.1" in bad.markdown()
    assert reg.failing() == ["bad"]
    table = reg.table_markdown()
    assert "1 of 2 claims do not hold" in table and "✗ fails" in table and "✓" in table
    assert "\\|s + 0.5\\|" in table, "a '|' in a criterion must not split the table cell"


def test_nan_never_holds_and_ids_are_unique_and_checked():
    reg = _reg()
    assert not reg.claim("n", "finite", value=float("nan"), criterion="finite", holds=True).holds
    with pytest.raises(ParameterError, match="registered twice"):
        reg.claim("n", "again", value=1, criterion="x", holds=True)
    with pytest.raises(ParameterError, match="claim id"):
        reg.claim("has space", "s", value=1, criterion="x", holds=True)
    with pytest.raises(ParameterError, match="statement and a criterion"):
        reg.claim("empty", "s", value=1, criterion="", holds=True)
    with pytest.raises(ParameterError, match="holds must be a boolean"):
        reg.claim("arr", "s", value=1, criterion="c", holds=np.array([True, False]))
    with pytest.raises(ParameterError, match="holds is None"):
        reg.claim("none", "s", value=1, criterion="c", holds=None)


def test_records_are_json_with_the_required_keys():
    reg = _reg()
    reg.claim("v", "vector", value=np.array([1.0, np.inf]), criterion="c", holds=True)
    reg.check("k", "ten", 10, "== 10", lambda n: n == 10, answers="003.c1")
    recs = json.loads(json.dumps(reg.records()))
    assert [r["id"] for r in recs] == ["v", "k"]
    for r in recs:
        assert {"id", "statement", "value", "criterion", "holds"} <= set(r)
    assert recs[0]["value"] == [1.0, "inf"] and recs[1]["answers"] == "003.c1" and recs[1]["source"] == "003"


def _notebook_with(reg):
    from robolib.book.claims import CLAIMS_MIME

    return {"cells": [{"cell_type": "markdown", "source": "x"},
                      {"cell_type": "code", "outputs": [{"output_type": "display_data", "data": {
                          "text/markdown": reg.table_markdown(),
                          CLAIMS_MIME: {"study": reg.study, "source": reg.source, "claims": reg.records()}}}]}]}


def test_extract_writes_the_claims_json_and_strict_mode_fails_on_a_false_claim(tmp_path, capsys):
    reg = _reg()
    reg.claim("a", "holds", value=1, criterion="c", holds=True)
    nb = tmp_path / "demo.ipynb"
    nb.write_text(json.dumps(_notebook_with(reg)))
    assert main([str(nb), "--strict"]) == 0
    assert json.loads((tmp_path / "demo.claims.json").read_text())[0]["id"] == "a"
    reg.claim("b", "fails", value=2, criterion="c", holds=False)
    nb.write_text(json.dumps(_notebook_with(reg)))
    assert main([str(nb)]) == 0, "a rerun with other parameters reports, does not fail"
    assert main([str(nb), "--strict"]) == 1
    assert "FAILS b" in capsys.readouterr().out
    empty = tmp_path / "empty.ipynb"
    empty.write_text(json.dumps({"cells": []}))
    assert from_notebook(json.loads(empty.read_text())) is None
    with pytest.raises(ParameterError, match="no claims register"):
        extract(empty)


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
    assert "Precomputed for a [m] ∈ {1, 2, 3}; b ∈ {1, 2}" in note.value and "make lab" in note.value
    from ipywidgets.widgets.widget import _instances

    links = [w for w in _instances.values() if isinstance(w, Link)]
    assert any(l.source == (sa, "index") and l.target == (outer, "selected_index") for l in links)
    assert sum(l.source == (sb, "index") for l in links) >= 3, "slider b drives the stack under each value of a"
    with pytest.raises(ParameterError, match="not in its grid"):
        explore(draw, {"a": [1.0, 2.0]}, initial={"a": 1.5}, mode="static")
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
