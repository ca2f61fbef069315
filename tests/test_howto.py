"""The how-to guides (``book/howto/*.md``) run at quick settings, as the book runs them at full settings.

Each guide is a MyST notebook with one ``parameters`` cell holding ``quick``; papermill runs it with
``quick=True`` and the run must raise nothing and display its result.
"""

from __future__ import annotations

import json

import jupytext
import papermill
import pytest

from conftest import ROOT, TIMEOUT

GUIDES = sorted(p.stem for p in (ROOT / "book" / "howto").glob("*.md") if p.stem != "index")

pytestmark = pytest.mark.notebooks


def _run_quick(name, tmp_path, **params) -> dict:
    src = tmp_path / f"{name}.ipynb"
    jupytext.write(jupytext.read(ROOT / "book" / "howto" / f"{name}.md"), src)
    out = tmp_path / f"{name}_out.ipynb"
    papermill.execute_notebook(src, out, parameters={"quick": True, **params}, kernel_name="python3",
                               progress_bar=False, cwd=str(tmp_path), execution_timeout=TIMEOUT)
    return json.loads(out.read_text())


def _outputs(nb) -> list[dict]:
    return [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]


@pytest.mark.parametrize("name", GUIDES)
def test_a_guide_runs_at_quick_settings_and_shows_its_result(built_quick_book, name):
    """The quick book executes each guide at quick settings as it builds (Jupyter Book, warnings and cell errors
    fail the build); its executed copy has one parameters cell, no error output, and shows its result as a table.
    (The guide is not run a second time here: the quick book's run is the one checked.)"""
    book, _, res = built_quick_book
    assert res.returncode == 0, res.stderr[-2000:]
    nb = json.loads((book / "_build" / "jupyter_execute" / "howto" / f"{name}.ipynb").read_text())
    tags = [c.get("metadata", {}).get("tags", []) for c in nb["cells"]]
    assert sum("parameters" in t for t in tags) == 1, "exactly one cell tagged 'parameters'"
    assert not [o for o in _outputs(nb) if o["output_type"] == "error"]
    assert any("text/markdown" in o.get("data", {}) for o in _outputs(nb)), "a guide shows its result as a table"


@pytest.mark.parametrize("name", GUIDES)
def test_every_value_of_a_guide_s_parameters_cell_can_be_set_with_papermill(tmp_path, name):
    src = tmp_path / f"{name}.ipynb"
    nb = jupytext.read(ROOT / "book" / "howto" / f"{name}.md")
    jupytext.write(nb, src)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    assigned = {line.split("=")[0].strip() for line in cell.source.splitlines() if "=" in line.split("#")[0]}
    assert assigned <= set(papermill.inspect_notebook(str(src))), "papermill does not see every parameter"


def test_the_guides_are_in_the_book(tmp_path):
    toc = (ROOT / "book" / "_toc.yml").read_text()
    assert all(f"howto/{name}" in toc for name in GUIDES)


def test_the_prp3_guide_s_two_sampling_routes_agree_on_another_geometry(tmp_path):
    nb = _run_quick("prp3_workspace", tmp_path, l1=180.0, l2=450.0, cond_limit=20.0)
    table = next("".join(o["data"]["text/markdown"]) for o in _outputs(nb)
                 if "the two routes" in "".join(o.get("data", {}).get("text/markdown", "")))
    verdicts = [row.rsplit("|", 2)[-2].strip() for row in table.splitlines()[2:]]
    assert verdicts == ["agree"] * 3, table


def test_the_redundant_guide_recalibrates_stribeck_to_the_coulomb_rms_and_its_simulation_follows_the_path(tmp_path):
    nb = _run_quick("redundant_reactions", tmp_path, mu=0.2, radius=0.04, period=1.5)
    tables = ["".join(o["data"]["text/markdown"]) for o in _outputs(nb) if "text/markdown" in o.get("data", {})]
    forces = next(t for t in tables if "RMS friction torque" in t).splitlines()[2:]
    friction = {r.split("|")[1].strip(): float(r.split("|")[-2]) for r in forces}
    assert friction["no friction"] == 0.0
    assert friction["Stribeck"] == pytest.approx(friction["Coulomb (consistent loads)"], rel=1e-3)
    deviations = next(t for t in tables if "deviation of the simulated path" in t).splitlines()[2:]
    radius_um = 0.04e6
    assert max(float(r.split("|")[-2]) for r in deviations) < 1e-3 * radius_um, "a simulation left the path by 0.1 % of its radius"


def test_the_stewart_guide_s_error_halves_with_the_step_on_the_other_platform_and_controller(tmp_path):
    nb = _run_quick("stewart_trajectory", tmp_path, data_file="stewart/hydraulic.yaml", controller="virtual_work",
                    heave_mm=10.0, roll_deg=3.0, roll_hz=1.5)
    table = next("".join(o["data"]["text/markdown"]) for o in _outputs(nb)
                 if "half the step" in "".join(o.get("data", {}).get("text/markdown", "")))
    rows = [r.split("|")[2].split()[0] for r in table.splitlines()[2:]]
    assert float(rows[0]) < 1e-9, "the motion as a function of time tracks differently from the same sines"
    assert 0.45 < float(rows[1]) < 0.55, "the tracking error is not first order in the controller's step"


def test_the_four_bar_guide_closes_its_power_and_energy_books_on_another_geometry(tmp_path):
    """Another crank-rocker, gravity tilted: the motor's power equals the rate of the
    mechanism's energy to round-off, and the clearance run's energy books close."""
    nb = _run_quick("fourbar_clearance", tmp_path, crank=0.08, coupler=0.28, rocker=0.22, ground=0.26,
                    gravity=[1.0, -9.7], frequency=1.5)
    texts = ["".join(o["data"]["text/markdown"]) for o in _outputs(nb) if "text/markdown" in o.get("data", {})]
    power = next(t for t in texts if "Motor power" in t)
    assert float(power.split("**")[1]) < 1e-12, power
    books = next(t for t in texts if "Energy books" in t)
    residual, work = (float(x.split()[0]) for x in books.split("largest residual ")[1].split(" J against a motor work of "))
    assert residual < 1e-6 * work, books
