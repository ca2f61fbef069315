"""The chapters in a real JupyterLab (the client ``make lab`` starts), driven by headless Chromium.

A double click on a chapter's ``.md`` opens it as a notebook (``jupyter/overrides.json``); saving it without an
edit leaves the ``.md`` byte for byte as it was and writes the paired ``build/lab/<name>.ipynb`` (``jupytext.toml``).
Its MyST renders (jupyterlab-myst): admonitions as boxes, the exercises' solutions folded. Run at quick settings,
the chapter shows its findings table, and moving a live slider redraws the Explore figure.
The server runs on a copy of the chapters, so the checkout is never written.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from test_book_browser import CHROMIUM

from conftest import ROOT

pytestmark = pytest.mark.book


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server with the workbench's settings on a copy of notebooks/ and jupytext.toml."""
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    settings = tmp_path / "settings"
    settings.mkdir()
    overrides = json.loads((ROOT / "jupyter" / "overrides.json").read_text())
    # every cell in the page (not only those scrolled into view), so that the test can read them all
    overrides["@jupyterlab/notebook-extension:tracker"] = {"windowingMode": "none"}
    (settings / "overrides.json").write_text(json.dumps(overrides))
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--IdentityProvider.token=t",
         f"--ServerApp.root_dir={tmp_path}", f"--LabApp.app_settings_dir={settings}",
         f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}", f"--LabApp.user_settings_dir={tmp_path / 'user'}", "--allow-root",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{url}/api/status?token=t", timeout=1)
            break
        except OSError:
            time.sleep(0.5)
    yield url, tmp_path
    proc.terminate()
    proc.wait(timeout=30)


def test_a_double_click_opens_a_chapter_as_a_notebook_and_saving_changes_no_line(lab):
    if not CHROMIUM:
        pytest.fail("no Chromium found: install it (Debian: apt-get install chromium) or set CHROMIUM=/path")
    from playwright.sync_api import sync_playwright

    url, root = lab
    source = root / "notebooks" / "prp3_roundtrip.md"
    before = source.read_bytes()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        pg = b.new_page(viewport={"width": 1280, "height": 900})
        pg.goto(f"{url}/lab/tree/notebooks?token=t")
        pg.locator(".jp-DirListing-item", has_text="prp3_roundtrip.md").dblclick(timeout=60_000)
        pg.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=60_000)
        assert pg.locator(".jp-FileEditor").count() == 0, "the chapter opened in the text editor"
        pg.wait_for_timeout(2000)
        pg.keyboard.press("Control+s")
        paired = root / "build" / "lab" / "prp3_roundtrip.ipynb"
        for _ in range(60):
            if paired.exists():
                break
            pg.wait_for_timeout(500)
        b.close()
    assert paired.exists(), "saving writes the paired notebook that keeps the outputs"
    assert source.read_bytes() == before, "opening and saving a chapter rewrote its source"


def _open(pg, url, name):
    pg.goto(f"{url}/lab/tree/notebooks?token=t")
    pg.locator(".jp-DirListing-item", has_text=f"{name}.md").dblclick(timeout=60_000)
    pg.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=60_000)


def _src_digest(img) -> str:
    return hashlib.sha256((img.get_attribute("src") or "").encode()).hexdigest()


def test_a_chapter_renders_its_myst_runs_quick_and_redraws_when_a_live_slider_moves(lab):
    if not CHROMIUM:
        pytest.fail("no Chromium found: install it (Debian: apt-get install chromium) or set CHROMIUM=/path")
    from playwright.sync_api import sync_playwright

    url, root = lab
    source = root / "notebooks" / "prp3_roundtrip.md"
    source.write_text(source.read_text().replace("quick = False", "quick = True", 1))
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        pg = b.new_page(viewport={"width": 1280, "height": 900})
        _open(pg, url, "prp3_roundtrip")
        pg.wait_for_timeout(5000)  # the markdown cells render after the notebook opens
        text = pg.locator(".jp-NotebookPanel").inner_text()
        assert "{admonition}" not in text and ":class: dropdown" not in text, "MyST directives show as raw text"
        solutions = pg.locator(".jp-MarkdownCell details")
        assert solutions.count() >= 3, "the exercises' solutions are not folded boxes"
        assert pg.locator(".jp-MarkdownCell details[open]").count() == 0, "a solution is shown open"

        pg.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        pg.get_by_text("Run All Cells", exact=True).click()
        slider = pg.locator(".jp-OutputArea .widget-slider").first
        slider.wait_for(timeout=300_000)
        text = pg.locator(".jp-NotebookPanel").inner_text()
        assert "Traceback" not in text, "a cell of the quick run raised"
        assert "the paper's rules" in text.replace("’", "'"), "the findings table (the claims with values) is not shown"

        panel = slider.locator("xpath=ancestor::div[contains(@class, 'jp-OutputArea-output')]").first
        before = _src_digest(panel.locator("img").first)
        handle = slider.locator(".noUi-handle").first
        handle.scroll_into_view_if_needed()
        handle.focus()
        for _ in range(5):
            pg.keyboard.press("ArrowRight")
        after = before
        for _ in range(60):
            pg.wait_for_timeout(500)
            after = _src_digest(panel.locator("img").first)
            if after != before:
                break
        assert slider.locator(".widget-readout").inner_text().strip() == "205", "the slider did not move by its step"
        b.close()
    assert after != before, "moving a live slider did not redraw the Explore figure"
