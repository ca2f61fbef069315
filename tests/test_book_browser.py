"""The built book reads offline and renders in a real browser (headless Chromium).

Every page of the quick book is loaded from disk; the test waits for its
scripts and asserts that math was typeset (MathJax output present, no raw TeX
delimiters left), that every image loaded, that saved widget state rendered,
and that the console stayed free of errors. A static scan checks that no page
loads a script or stylesheet from another site.
"""

from __future__ import annotations

import os
import re
import shutil
from html.parser import HTMLParser

import pytest

pytestmark = pytest.mark.book

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
#: Console messages that are not errors of ours (ajv schema warning inside the widget manager).
IGNORED_CONSOLE = (re.compile(r"strict mode: use allowUnionTypes"),)


class _Assets(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.urls.append(a["src"])
        if tag == "link" and "stylesheet" in (a.get("rel") or "") and a.get("href"):
            self.urls.append(a["href"])
        if tag == "link" and (a.get("rel") or "") in ("preload", "modulepreload") and a.get("href"):
            self.urls.append(a["href"])


def pages(html_dir):
    return sorted(p for p in html_dir.rglob("*.html") if "_static" not in p.parts and "vendor" not in p.parts)


def test_no_page_loads_scripts_or_styles_from_another_site(built_quick_book):
    book, failures, res = built_quick_book
    assert res.returncode == 0, res.stdout[-2000:]
    html = book / "_build" / "html"
    offenders = {}
    for page in pages(html):
        parser = _Assets()
        parser.feed(page.read_text())
        external = [u for u in parser.urls if re.match(r"^(https?:)?//", u)]
        if external:
            offenders[str(page.relative_to(html))] = external
    assert not offenders, offenders
    assert (html / "vendor" / "mathjax" / "tex-mml-chtml.js").is_file()


@pytest.fixture(scope="module")
def browser():
    if os.environ.get("SKIP_BROWSER") == "1":
        pytest.skip("SKIP_BROWSER=1: browser check of the book skipped on request")
    if not CHROMIUM:
        pytest.fail("no Chromium found: install it (Debian: apt-get install chromium), set CHROMIUM=/path, "
                    "or run make test SKIP_BROWSER=1")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


def test_every_page_renders_offline(built_quick_book, browser):
    book, failures, res = built_quick_book
    assert res.returncode == 0, res.stdout[-2000:]
    html = book / "_build" / "html"
    problems = {}
    checked = 0
    for page in pages(html):
        name = str(page.relative_to(html))
        if name in ("search.html", "genindex.html", "py-modindex.html"):
            continue
        if 'http-equiv="Refresh"' in page.read_text()[:2000]:
            continue  # Jupyter Book's root index.html only redirects to the first page
        tab = browser.new_page()
        events = []
        tab.on("console", lambda m: events.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        tab.on("pageerror", lambda e: events.append(f"page error: {e}"))
        tab.on("requestfailed", lambda r: events.append(f"failed request: {r.url}"))
        tab.goto(page.as_uri(), wait_until="load")
        has_mathjax = tab.evaluate("() => !!document.querySelector('script[src*=\"tex-mml-chtml\"]')")
        if has_mathjax:
            tab.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30_000)
            tab.evaluate("() => MathJax.startup.promise")
        tab.wait_for_timeout(500)
        info = tab.evaluate("""() => ({
            math: document.querySelectorAll('.math').length,
            typeset: document.querySelectorAll('mjx-container').length,
            raw: (document.querySelector('main') || document.body).innerText.match(/\\\\\\(|\\\\\\[|\\$\\$/g),
            badImages: [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src.slice(0, 80)),
            images: document.images.length,
            widgetState: !!document.querySelector('script[type="application/vnd.jupyter.widget-state+json"]'),
            widgets: document.querySelectorAll('.jupyter-widgets').length,
        })""")
        errs = [e for e in events if not any(p.search(e) for p in IGNORED_CONSOLE)]
        if info["math"] and info["typeset"] < info["math"]:
            errs.append(f"{info['math']} math elements but only {info['typeset']} typeset by MathJax")
        if info["raw"]:
            errs.append(f"raw TeX delimiters left in the text: {info['raw'][:5]}")
        if info["badImages"]:
            errs.append(f"images that did not load: {info['badImages']}")
        if info["widgetState"] and not info["widgets"]:
            errs.append("saved widget state present but no widget rendered")
        if errs:
            problems[name] = errs
        checked += 1
        tab.close()
    assert checked >= 4
    assert not problems, problems


#: noUiSlider ignores a second tap on the track while the first one animates (300 ms).
TAP_SETTLE_MS = 600


def _study_pages(html):
    return sorted((html / "studies").glob("*.html"))


def _visible_states(tab, panel):
    return panel.evaluate("p => [...p.querySelectorAll('.explore-state')].filter(e => e.offsetParent !== null)"
                          ".map(e => e.textContent)")


def _readouts(panel):
    return panel.evaluate("p => [...p.querySelectorAll('.widget-slider, .widget-dropdown')].map(s => {"
                          " const l = s.querySelector('.widget-label'); const r = s.querySelector('.widget-readout');"
                          " const d = s.querySelector('select');"
                          " return [l ? l.textContent.trim() : '', r ? r.textContent.trim() : (d ? d.selectedOptions[0].textContent.trim() : '')]; })")


def test_explore_panels_respond_without_a_kernel(built_quick_book, browser):
    """Every Explore control switches the figure to the one precomputed for its value (mouse and keyboard)."""
    book, failures, res = built_quick_book
    assert res.returncode == 0, res.stdout[-2000:]
    html = book / "_build" / "html"
    problems, panels_seen = {}, {}
    for page in _study_pages(html):
        name = page.stem
        tab = browser.new_page(viewport={"width": 1300, "height": 1000})
        events, requests = [], []
        tab.on("console", lambda m: events.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        tab.on("pageerror", lambda e: events.append(f"page error: {e}"))
        tab.on("request", lambda r: requests.append(r.url))
        tab.goto(page.as_uri(), wait_until="load")
        tab.wait_for_timeout(1500)
        panels = tab.query_selector_all(".robolib-explore")
        panels_seen[name] = len(panels)
        errs = []
        for k, panel in enumerate(panels):
            panel.scroll_into_view_if_needed()
            handles = panel.query_selector_all(".noUi-handle")
            for h_i, handle in enumerate(handles):
                before = _visible_states(tab, panel)
                if len(before) != 1:
                    errs.append(f"panel {k}: {len(before)} figures visible, expected one")
                    break
                # keyboard: focus the handle, one step right (or left at the end)
                handle.focus()
                tab.keyboard.press("ArrowRight")
                tab.wait_for_timeout(200)
                after_key = _visible_states(tab, panel)
                if after_key == before:
                    tab.keyboard.press("ArrowLeft")
                    tab.keyboard.press("ArrowLeft")
                    tab.wait_for_timeout(200)
                    after_key = _visible_states(tab, panel)
                if after_key == before:
                    errs.append(f"panel {k}, control {h_i}: the arrow keys did not change the figure")
                # mouse: click the far end of the slider track, then the other end
                track_el = panel.query_selector_all(".noUi-target")[h_i]
                shown = set()
                for frac in (0.01, 0.99):
                    track_el.evaluate("e => e.scrollIntoView({block: 'center'})")  # not under the fixed header
                    track = track_el.bounding_box()
                    tab.mouse.click(track["x"] + frac * track["width"], track["y"] + track["height"] / 2)
                    tab.wait_for_timeout(TAP_SETTLE_MS)
                    shown.add(tuple(_visible_states(tab, panel)))
                if len(shown) < 2:
                    errs.append(f"panel {k}, control {h_i}: clicking both ends of the track showed one figure")
                # the figure shown is the one precomputed for the readouts
                state = _visible_states(tab, panel)[0]
                for label, readout in _readouts(panel):
                    if f"{label} = {readout}" not in state:
                        errs.append(f"panel {k}: control '{label}' reads {readout!r} but the figure shown is '{state}'")
        outside = [u for u in requests if not u.startswith(html.as_uri()) and not u.startswith("data:")
                   and not u.startswith("blob:")]
        if outside:
            errs.append(f"requests outside the book: {outside[:5]}")
        errs += [e for e in events if not any(p.search(e) for p in IGNORED_CONSOLE)]
        if errs:
            problems[name] = errs
        tab.close()
    assert not problems, problems
    assert panels_seen and all(panels_seen.values()), f"every chapter has a static Explore panel: {panels_seen}"


#: For each "Solution" dropdown: is its text visible, and is the output of the code cell right after it visible?
SOLUTIONS_JS = """() => {
    const vis = e => e.checkVisibility({checkVisibilityCSS: true, checkOpacity: true}) && e.getBoundingClientRect().height > 0;
    const sols = [...document.querySelectorAll('.admonition.dropdown')].filter(
        a => /solution/i.test((a.querySelector('.admonition-title') || {}).textContent || ''));
    return sols.map(a => {
        const body = [...a.children].filter(c => !c.classList.contains('admonition-title'));
        const next = a.nextElementSibling;
        const out = next && next.classList.contains('cell') ? next.querySelector('.cell_output') : null;
        return {bodyVisible: body.some(vis), outputVisible: !!(out && vis(out))};
    });
}"""


def test_exercise_solutions_stay_hidden_until_opened(built_quick_book, browser):
    """A solution's text and its code output are hidden until the reader opens them."""
    book, failures, res = built_quick_book
    html = book / "_build" / "html"
    problems = {}
    for page in _study_pages(html):
        tab = browser.new_page()
        tab.goto(page.as_uri(), wait_until="load")
        tab.wait_for_timeout(500)
        info = tab.evaluate(SOLUTIONS_JS)
        bad = [i for i in info if i["bodyVisible"] or i["outputVisible"]]
        if not info:
            bad = ["no exercise solutions on this page"]
        elif not bad:
            # the check can see a solution: open the first one (box and code cell) and look again
            tab.click(".admonition.dropdown.toggle-hidden .admonition-title >> nth=0")
            cell = tab.query_selector(".admonition.dropdown ~ .cell.tag_hide-cell details")
            if cell:
                cell.evaluate("d => { d.open = true; }")
            tab.wait_for_timeout(400)
            first = tab.evaluate(SOLUTIONS_JS)[0]
            if not first["bodyVisible"] or (cell and not first["outputVisible"]):
                bad = [f"an opened solution is still not visible: {first}"]
        if bad:
            problems[page.stem] = bad
        tab.close()
    assert not problems, problems
