"""The chapters in a real JupyterLab (the client ``make lab`` starts), driven by headless Chromium.

A double click on a chapter's ``.md`` opens it as a notebook (``jupyter/overrides.json``); saving it without an
edit leaves the ``.md`` byte for byte as it was and writes the paired ``build/lab/<name>.ipynb`` (``jupytext.toml``).
The server runs on a copy of the chapter, so the checkout is never written.
"""

from __future__ import annotations

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
    shutil.copy(ROOT / "jupyter" / "overrides.json", settings / "overrides.json")
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
