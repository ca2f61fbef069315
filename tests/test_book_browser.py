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
from pathlib import Path

import pytest

pytestmark = pytest.mark.book

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
#: Console messages that are not errors of ours (ajv schema warning inside the widget manager).
IGNORED_CONSOLE = (re.compile(r"strict mode: use allowUnionTypes"),)


class _Assets(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls, self.links = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.urls.append(a["src"])
        if tag == "link" and "stylesheet" in (a.get("rel") or "") and a.get("href"):
            self.urls.append(a["href"])
        if tag == "link" and (a.get("rel") or "") in ("preload", "modulepreload") and a.get("href"):
            self.urls.append(a["href"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])


def pages(html_dir):
    return sorted(p for p in html_dir.rglob("*.html") if "_static" not in p.parts and "vendor" not in p.parts)


def outside_the_book(html, kind: str) -> dict:
    """``{page: [url, ...]}``: the addresses on another site that each page of ``html`` uses, ``kind`` ``"urls"``
    (scripts, styles, preloads) or ``"links"`` (``<a href>``)."""
    found = {}
    for page in pages(html):
        parser = _Assets()
        parser.feed(page.read_text())
        external = [u for u in getattr(parser, kind) if re.match(r"^(https?:)?//", u)]
        if external:
            found[str(page.relative_to(html))] = external
    return found


def test_no_page_loads_scripts_or_styles_from_another_site(book_html):
    assert not (offenders := outside_the_book(book_html, "urls")), offenders
    assert (book_html / "vendor" / "mathjax" / "tex-mml-chtml.js").is_file()


def test_no_link_leaves_the_book(book_html):
    """No page links a site outside the book (a reader offline, or reading the archive, follows every link)."""
    assert not (offenders := outside_the_book(book_html, "links")), offenders


@pytest.fixture(scope="module")
def browser():
    if os.environ.get("SKIP_BROWSER") == "1":
        pytest.skip("SKIP_BROWSER=1: browser check of the book skipped on request")
    if not CHROMIUM:
        pytest.fail("no Chromium found: install it (Debian: apt-get install chromium), set CHROMIUM=/path, "
                    "or run make test SKIP_BROWSER=1")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


def render_problems(browser, html) -> tuple[int, dict]:
    """``(pages checked, {page: [problem, ...]})``: every content page of the built book at ``html`` loaded offline:
    console errors, page errors, failed requests, math left untypeset or raw TeX, images that did not load, saved
    widget state with no widget rendered."""
    html = Path(html)
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
    return checked, problems




@pytest.fixture(scope="module")
def render(request, book_html, browser):
    """:func:`render_problems` of the book: for the quick book made in the background while the rest of the suite ran
    (``QuickBook.page_reports``); if that failed, or for a book named by ROBOLIB_BOOK_HTML, made here."""
    made = _background(request)
    if made is not None:
        return tuple(made["render"])
    return render_problems(browser, book_html)


def test_every_page_renders_offline(render):
    checked, problems = render
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
                # a screen reader hears the slider's name and its value, not an index (book/_static/robolib-a11y.js)
                tab.wait_for_timeout(100)
                for name, aria, readout, valuetext in panel.evaluate(
                        "p => [...p.querySelectorAll('.widget-slider')].map(s => { const h = s.querySelector("
                        "'[role=slider]'); const t = c => (s.querySelector(c) || {textContent: ''}).textContent.trim();"
                        " return [t('.widget-label'), h.getAttribute('aria-label'), t('.widget-readout'),"
                        " h.getAttribute('aria-valuetext')]; })"):
                    if aria != name or valuetext != readout:
                        errs.append(f"panel {k}: slider '{name}' has aria-label {aria!r} and aria-valuetext "
                                    f"{valuetext!r} (readout {readout!r})")
        outside = [u for u in requests if not u.startswith(html.as_uri()) and not u.startswith("data:")
                   and not u.startswith("blob:")]
        if outside:
            errs.append(f"requests outside the book: {outside[:5]}")
        errs += [e for e in events if not any(p.search(e) for p in IGNORED_CONSOLE)]
        if errs:
            problems[name] = errs
        tab.close()
    assert not problems, problems
    from conftest import STUDIES  # the chapters run by a study (chapters 5 and 7 read chapter 4's and 6's runs)

    assert all(panels_seen.get(s) for s in STUDIES), f"every study's chapter has a static Explore panel: {panels_seen}"


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
            # (the first dropdown titled "Solution": a page may fold other asides before its exercises)
            tab.locator(".admonition.dropdown.toggle-hidden .admonition-title", has_text=re.compile("solution", re.I)
                        ).first.click()
            cell = tab.evaluate_handle("""() => {
                const sol = [...document.querySelectorAll('.admonition.dropdown')].find(
                    a => /solution/i.test((a.querySelector('.admonition-title') || {}).textContent || ''));
                const next = sol && sol.nextElementSibling;
                return next && next.matches('.cell.tag_hide-cell') ? next.querySelector('details') : null;
            }""").as_element()
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


# ---- layout: figures that are images, alt text, equations and numbers that fit ------------------------------

#: Pixels a display equation may exceed its box by (sub-pixel rounding of MathJax's CHTML layout).
EQUATION_SLACK_PX = 1.0
#: A figure image (a cell output's PNG, made at robolib.core.drawing.FIGURE_DPI) shown at less than this fraction of its
#: natural width sets matplotlib's default 10-pt text below 9 px (10 / 72 x 100 x 0.65 = 9.0 px): too small to read.
#: In the 672-px column of a 1280-px window that is a PNG wider than 1034 px; the chapter figures are drawn for the
#: column (robolib.core.drawing.FIGURE_WIDTH).
MIN_FIGURE_SCALE = 0.65
#: The smallest text a figure may show, in CSS px as displayed (its recorded size at natural width x the fraction
#: of that width shown).
MIN_TEXT_PX = 9.0
#: A figure shown wider than this multiple of its drawn width: a PNG turns blurry and a drawing's text outgrows the
#: page's (figures are drawn at the width they are shown).
MAX_FIGURE_SCALE = 1.1
#: A pattern for a number in a table cell that must not be split over two lines.
NUMBER_RE = r"[-+−]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][-+−]?\d+)?(?:[×x]10[-+−⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)?%?"

LAYOUT_JS = r"""([slack, numberRe, minScale]) => {
    const main = document.querySelector('main') || document.body;
    const short = s => s.replace(/\s+/g, ' ').trim().slice(0, 120);
    // 1. a figure output that is only its text/plain repr
    const figureText = [...main.querySelectorAll('.cell_output .output, .cell_output pre')]
        .filter(o => !(o.tagName === 'PRE' && o.parentElement.closest('.cell_output .output')))
        .filter(o => !o.querySelector('img, svg, canvas') && /<Figure size [\d.]+x[\d.]+ with \d+ Axes>/.test(o.textContent))
        .map(o => short(o.textContent));
    // 2. images without alt text
    const noAlt = [...main.querySelectorAll('img')].filter(i => !(i.getAttribute('alt') || '').trim())
        .map(i => (i.closest('[id]') || {}).id + ': ' + (i.getAttribute('src') || '').slice(0, 60));
    // 3. display equations wider than their box, or running under their number
    const tex = new Map();
    if (window.MathJax && MathJax.startup && MathJax.startup.document)
        for (const item of MathJax.startup.document.math) tex.set(item.typesetRoot, item.math);
    const wide = [];
    for (const c of main.querySelectorAll('mjx-container[display="true"]')) {
        if (!c.getClientRects().length) continue;               // inside a closed dropdown
        const m = c.querySelector('mjx-math');
        const w = m.getBoundingClientRect().width;
        const box = c.closest('div.math') || c.parentElement;
        const eqno = box.querySelector(':scope > .eqno');
        const avail = Math.min(c.clientWidth || 1e9, box.clientWidth - (eqno ? eqno.getBoundingClientRect().width : 0));
        let under = false;
        if (eqno) {
            const a = m.getBoundingClientRect(), b = eqno.getBoundingClientRect();
            under = a.right > b.left + slack && a.left < b.right && a.bottom > b.top && a.top < b.bottom;
        }
        if (w > avail + slack || under)
            wide.push({width: Math.round(w), avail: Math.round(avail), eqno: eqno ? eqno.textContent.trim() : '',
                       under, tex: short(tex.get(c) || c.textContent).slice(0, 90)});
    }
    // 4. numbers split over two lines inside a table cell
    const split = [];
    const re = new RegExp(numberRe, 'g');
    for (const cell of main.querySelectorAll('td, th')) {
        if (!cell.getClientRects().length) continue;
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let t = walker.nextNode(); t; t = walker.nextNode()) {
            if (t.parentElement.closest('mjx-container')) continue;
            for (const hit of t.data.matchAll(re)) {
                if (hit[0].length < 3) continue;
                const r = document.createRange();
                r.setStart(t, hit.index); r.setEnd(t, hit.index + hit[0].length);
                const tops = new Set([...r.getClientRects()].filter(q => q.width > 0).map(q => Math.round(q.top)));
                if (tops.size > 1) split.push(hit[0] + ' in "' + short(cell.textContent).slice(0, 60) + '"');
            }
        }
    }
    // 5. every figure image shown: its natural and displayed width and its smallest text at natural size (the
    //    data-robolib-min-font-px attribute of an Explore or animation image; a PNG's text chunk, read in Python)
    const images = [...main.querySelectorAll('.cell_output img, .robolib-animation img, .widget-html img, figure img')]
        .filter(i => i.getClientRects().length && i.naturalWidth > 0)
        .map(i => ({where: ((i.closest('[id]') || {}).id || ''), natural: i.naturalWidth, shown: i.clientWidth,
                    font: i.getAttribute('data-robolib-min-font-px'),
                    src: i.src.startsWith('data:image/png') || !i.src.startsWith('data:') ? i.src : ''}));
    // 6. tables wider than their box (they scroll sideways)
    const sideways = [...main.querySelectorAll('table')].filter(t => t.getClientRects().length)
        .filter(t => { const box = t.closest('.pst-scrollable-table-container') || t.parentElement;
                       return box.scrollWidth > box.clientWidth + 1; })
        .map(t => ((t.closest('[id]') || {}).id || '') + ': ' + short(t.textContent).slice(0, 60));
    return {figureText, noAlt, wide, split, images, sideways};
}"""


def image_font_px(src: str):
    """The smallest text at natural size that :func:`robolib.book.notebook.png_image` recorded in a PNG (a
    ``file:`` or ``data:`` URL), or None."""
    import base64
    import io
    from pathlib import Path
    from urllib.parse import unquote, urlparse

    from PIL import Image

    from robolib.book.notebook import FONT_KEY

    if src.startswith("data:image/png"):
        data = base64.b64decode(src.partition(",")[2])
    elif src.startswith("file:"):
        path = Path(unquote(urlparse(src).path))
        if path.suffix.lower() != ".png" or not path.is_file():
            return None
        data = path.read_bytes()
    else:
        return None
    value = getattr(Image.open(io.BytesIO(data)), "text", {}).get(FONT_KEY)
    return float(value) if value else None


def small_text(images, min_px=MIN_TEXT_PX, min_scale=MIN_FIGURE_SCALE) -> list[str]:
    """The images of :data:`LAYOUT_JS` whose smallest text is shown under ``min_px`` (its size at natural width
    times the displayed fraction); an image that records no text size (drawn elsewhere) is checked by the
    fraction alone (under ``min_scale``)."""
    bad = []
    for im in images:
        scale = im["shown"] / im["natural"]
        font = float(im["font"]) if im["font"] else image_font_px(im["src"]) if im["src"] else None
        if font is not None and font * scale < min_px:
            bad.append(f"{im['where']}: smallest text {font * scale:.1f} px as displayed ({font:.1f} px in a "
                       f"{im['natural']} px image shown at {im['shown']})")
        elif font is None and scale < min_scale:
            bad.append(f"{im['where']}: {im['natural']} px shown at {im['shown']} (no recorded text size)")
    return bad


def enlarged(images, max_scale=MAX_FIGURE_SCALE) -> list[str]:
    """The images of :data:`LAYOUT_JS` shown wider than ``max_scale`` times their drawn width (a PNG turns blurry,
    a drawing's text outgrows the page's)."""
    return [f"{im['where']}: {im['natural']} px shown at {im['shown']}" for im in images
            if im["shown"] > max_scale * im["natural"]]


def book_layout(tab):
    """The layout report of the page open in ``tab``: figure texts, images without alt, wide equations, split
    numbers, figures whose text is shown too small (``small``), tables that scroll sideways."""
    report = tab.evaluate(LAYOUT_JS, [EQUATION_SLACK_PX, NUMBER_RE, MIN_FIGURE_SCALE])
    images = report.pop("images")
    report["small"], report["enlarged"] = small_text(images), enlarged(images)
    return report


def open_page(browser, page, width=1280):
    """A tab at ``width`` px with ``page`` loaded, math typeset and saved widgets rendered."""
    tab = browser.new_page(viewport={"width": width, "height": 900})
    tab.goto(page.as_uri(), wait_until="load")
    if tab.evaluate("() => !!document.querySelector('script[src*=\"tex-mml-chtml\"]')"):
        tab.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30_000)
        tab.evaluate("() => MathJax.startup.promise")
    tab.wait_for_timeout(1200)
    return tab


#: axe-core (vendored by tools/vendor_js.sh), the accessibility audit: WCAG 2.1 A and AA rules.
AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: What axe finds that is not the book's: sphinxcontrib-bibtex marks its citation list with ARIA roles that ARIA 1.2
#: deprecated (doc-biblioentry in a role="list").
AXE_EXCLUDE = [[".citation-list"]]


def axe_violations(tab) -> list[str]:
    """``["rule: target", ...]``: what axe-core finds on the page open in ``tab`` (outside :data:`AXE_EXCLUDE`)."""
    if not tab.evaluate("() => !!window.axe"):
        tab.add_script_tag(path=str(AXE_JS))
    found = tab.evaluate("""async ([tags, exclude]) => {
        const r = await axe.run({exclude}, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
        return r.violations.flatMap(v => v.nodes.map(n => v.id + ': ' + n.target.join(' ') + ' ' + n.html.slice(0, 80)));
    }""", [AXE_TAGS, AXE_EXCLUDE])
    return found


def layout_problems(browser, html, kinds=("figureText", "noAlt", "wide", "split", "small", "enlarged", "sideways",
                                             "axe")):
    """``{page: {kind: [...]}}`` over every content page of the built book at ``html``."""
    problems = {}
    for page in pages(html):
        name = str(page.relative_to(html))
        if name in ("search.html", "genindex.html", "py-modindex.html") or 'http-equiv="Refresh"' in page.read_text()[:2000]:
            continue
        tab = open_page(browser, page)
        report = book_layout(tab)
        report["axe"] = axe_violations(tab) if "axe" in kinds else []
        tab.close()
        bad = {k: report[k] for k in kinds if report[k]}
        if bad:
            problems[name] = bad
    return problems


@pytest.fixture(scope="module")
def book_html(request):
    """The built book's HTML directory: ``ROBOLIB_BOOK_HTML`` (a book already built) or the quick book."""
    from pathlib import Path

    given = os.environ.get("ROBOLIB_BOOK_HTML")
    if given:
        return Path(given).resolve()
    book, failures, res = request.getfixturevalue("built_quick_book")
    assert res.returncode == 0, res.stdout[-2000:]
    return book / "_build" / "html"


def launch(p):
    """Chromium, headless, from the playwright instance ``p`` (no network services of its own)."""
    return p.chromium.launch(executable_path=CHROMIUM, args=[
        "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"])


def page_reports(html) -> dict:
    """The page passes over the built book at ``html``, in a browser of their own: ``{"layout": layout_problems,
    "render": render_problems}``. What the quick book's process computes in the background once the book is built
    (tests/conftest.py, ``QuickBook``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        try:
            return {"layout": layout_problems(b, Path(html)), "render": render_problems(b, Path(html))}
        finally:
            b.close()


def _background(request) -> dict | None:
    """The quick book's background page reports (:func:`page_reports`), or None: for a book named by
    ROBOLIB_BOOK_HTML, without a quick book, or if the background pass failed."""
    if os.environ.get("ROBOLIB_BOOK_HTML"):
        return None
    quick = request.getfixturevalue("_quick_book_in_background")
    return quick.page_reports() if quick is not None else None


@pytest.fixture(scope="module")
def layout(request, book_html, browser):
    """The layout report of every page (one pass over the book, shared by the tests below). For the quick book the
    pass was made in the background while the rest of the suite ran (``QuickBook.page_reports``); if it failed there,
    or for a book named by ROBOLIB_BOOK_HTML, it is made here."""
    made = _background(request)
    if made is not None:
        return made["layout"]
    return layout_problems(browser, book_html)


def _only(report, kinds):
    return {page: {k: v for k, v in r.items() if k in kinds} for page, r in report.items() if set(r) & set(kinds)}


def test_every_figure_is_an_image_with_alt_text(layout):
    """No figure cell shows only ``<Figure size ...>``; every ``<img>`` (widgets and animations too) has alt text."""
    problems = _only(layout, ("figureText", "noAlt"))
    assert not problems, problems


def test_display_equations_fit_the_column(layout):
    """At 1280 px no display equation is wider than its box or runs under its number."""
    problems = _only(layout, ("wide",))
    assert not problems, problems


def test_figures_are_not_shrunk_below_readable_text(layout):
    """Every figure's smallest text (tick labels and legends included) is at least MIN_TEXT_PX as displayed: its
    size at natural width (recorded by robolib.book.notebook) times the fraction of that width shown."""
    problems = _only(layout, ("small",))
    assert not problems, problems


def test_figures_are_not_enlarged_beyond_their_drawing(layout):
    """No figure is shown more than MAX_FIGURE_SCALE times as wide as it was drawn (each is drawn for the column)."""
    problems = _only(layout, ("enlarged",))
    assert not problems, problems


def test_no_table_scrolls_sideways(layout):
    """At 1280 px every table fits its column (none scrolls sideways inside its box)."""
    problems = _only(layout, ("sideways",))
    assert not problems, problems


def test_axe_finds_no_accessibility_violation(layout):
    """axe-core's WCAG 2.1 A/AA audit finds nothing on any page (slider handles, animation sliders and the
    navigation folds have names; contrast holds), outside the bibliography's markup (AXE_EXCLUDE)."""
    problems = _only(layout, ("axe",))
    assert not problems, problems


def checked_page(browser, path, text: str, check):
    """``check(tab)`` of the page ``text``, written to ``path`` and opened in ``browser``."""
    path.write_text(text)
    tab = open_page(browser, path)
    try:
        return check(tab)
    finally:
        tab.close()


def test_axe_audit_is_not_blind(tmp_path, browser):
    """The audit reports an unnamed range slider and an image without alt text, and nothing on a clean page."""
    found = checked_page(browser, tmp_path / "bad.html",
                         '<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><main><input type="range">'
                         '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></body></html>', axe_violations)
    assert any(v.startswith("label:") for v in found) and any(v.startswith("image-alt:") for v in found), found
    assert checked_page(browser, tmp_path / "clean.html",
                        '<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><main>'
                        '<input type="range" aria-label="frame"></main></body></html>', axe_violations) == []


def test_table_cells_do_not_split_numbers(layout):
    """No number in a table cell is broken over two lines (``4.92e+`` / ``03``)."""
    problems = _only(layout, ("split",))
    assert not problems, problems


if __name__ == "__main__":  # python tests/test_book_browser.py book/_build/html: the layout report of a built book
    import json
    import sys
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        print(json.dumps(layout_problems(b, Path(sys.argv[1]).resolve()), indent=1, ensure_ascii=False))
        b.close()


def _wide_png(width=1000, height=4):
    """A blank PNG ``width`` px wide (base64), to be shown in a 400-px column."""
    import base64
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\xff" * width for _ in range(height))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    return base64.b64encode(png).decode()


def _text_png(points):
    """A 3-in figure whose only text is ``points`` pt, as robolib.book.notebook.png_image makes it (base64)."""
    import base64

    from matplotlib.figure import Figure

    from robolib.book.notebook import png_image

    fig = Figure(figsize=(3, 1))
    fig.text(0.1, 0.5, "label", fontsize=points)
    return base64.b64encode(png_image(fig, 100).data).decode()


def _synthetic_page(tmp_path):
    """A page with one of each defect the layout check looks for (and MathJax from the vendored copy)."""
    from pathlib import Path

    mathjax = (Path(__file__).resolve().parent.parent / "book" / "_extra" / "vendor" / "mathjax" / "tex-mml-chtml.js")
    page = tmp_path / "defects.html"
    page.write_text(f"""<!DOCTYPE html><html><head><meta charset="utf-8">
<script>MathJax = {{tex: {{displayMath: [['\\\\[', '\\\\]']]}}}};</script>
<script defer src="{mathjax.as_uri()}"></script></head><body><main style="width: 400px">
<div class="cell_output"><div class="output text_plain"><pre>&lt;Figure size 860x540 with 2 Axes&gt;</pre></div></div>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<div class="math">\\[ a_1 + a_2 + a_3 + a_4 + a_5 + a_6 + a_7 + a_8 + a_9 + a_{{10}} + a_{{11}} + a_{{12}} + a_{{13}} + a_{{14}}
 + a_{{15}} + a_{{16}} + a_{{17}} + a_{{18}} \\]</div>
<table style="width: 60px"><tr><td style="overflow-wrap: anywhere">4.92e+03 and 1e-09</td></tr></table>
<div class="cell_output"><img alt="a wide figure" style="max-width: 100%" src="data:image/png;base64,{_wide_png()}"></div>
<div class="cell_output"><img alt="small text" style="max-width: 100%" src="data:image/png;base64,{_text_png(6)}"></div>
<div class="cell_output"><img alt="large text" style="max-width: 100%" src="data:image/png;base64,{_text_png(10)}"></div>
<figure><img alt="enlarged" style="width: 390px" src="data:image/png;base64,{_text_png(10)}"></figure>
<div class="pst-scrollable-table-container" style="overflow: auto"><table><tr><td>{"wide_cell_" * 60}</td></tr></table></div>
</main></body></html>""")
    return page


def test_layout_check_sees_each_defect(tmp_path, browser):
    """The layout check is not blind: a figure shown as text, an image without alt, an equation wider than
    its box and a number split in a cell are each reported (and a clean page reports nothing)."""
    page = _synthetic_page(tmp_path)
    tab = open_page(browser, page)
    report = book_layout(tab)
    tab.close()
    assert report["figureText"] == ["<Figure size 860x540 with 2 Axes>"], report
    assert len(report["noAlt"]) == 1, report
    assert len(report["wide"]) == 1 and report["wide"][0]["width"] > report["wide"][0]["avail"], report
    assert any(s.startswith("4.92e+03") for s in report["split"]), report
    assert len(report["small"]) == 2, report                 # the 6-pt text (8.3 px) and the wide image without a size
    assert any("1000 px shown at" in x for x in report["small"]) and any("8.3 px" in x for x in report["small"]), report
    assert any("wide_cell_" in x for x in report["sideways"]), report
    assert len(report["enlarged"]) == 1 and report["enlarged"][0].endswith(" shown at 390"), report["enlarged"]
    report = checked_page(browser, tmp_path / "clean.html",
                          '<html><body><main><img alt="a dot" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
                          '<table><tr><td>4.92e+03</td></tr></table></main></body></html>', book_layout)
    assert not any(report.values()), report


#: Characters of the found page's Chinese quotations (any would do; these are in the 3-PRP paper's).
ZH_SAMPLE = "由表可知"

FONT_JS = """async () => {
    await document.fonts.ready;
    const spans = [...document.querySelectorAll('[lang="zh"]')];
    return {
        spans: spans.length,
        family: spans.length ? getComputedStyle(spans[0]).fontFamily : '',
        loaded: [...document.fonts].filter(f => /Noto Sans SC/.test(f.family) && f.status === 'loaded').length,
        faces: [...document.fonts].filter(f => /Noto Sans SC/.test(f.family)).length,
        check: document.fonts.check('16px "Noto Sans SC"', spans.length ? spans[0].textContent : ''),
    };
}"""


def test_chinese_quotes_render_in_the_vendored_font_offline(book_html, browser):
    """The found page marks its Chinese quotations lang="zh" and Chromium renders them with the book's own
    Noto Sans SC (woff2 subsets from the site), every request outside the site refused."""
    page = book_html / "found.html"
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    outside = []

    def only_the_book(route):
        url = route.request.url
        if url.startswith("file:") or url.startswith("data:") or url.startswith("blob:"):
            return route.continue_()
        outside.append(url)
        return route.abort()

    tab.route("**/*", only_the_book)
    fonts = []
    tab.on("requestfinished", lambda r: fonts.append(r.url) if r.url.endswith(".woff2") and "noto-sans-sc" in r.url else None)
    tab.goto(page.as_uri(), wait_until="load")
    for span in tab.query_selector_all('[lang="zh"]')[:3]:
        span.scroll_into_view_if_needed()
    info = tab.evaluate(FONT_JS)
    tab.close()
    assert info["spans"] >= 3, info
    assert info["family"].startswith('"Noto Sans SC"'), info
    assert info["loaded"] >= 1 and info["check"], info
    assert fonts and len(fonts) < info["faces"], f"{len(fonts)} of {info['faces']} subsets loaded: {fonts[:3]}"
    assert not outside, outside


def test_the_book_carries_its_sources_and_claims(book_html):
    """downloads/ holds the source archive (code, data, notebooks) and every study's claims JSON; the intro
    and each chapter's rerun note link them."""
    import json
    import tarfile

    from conftest import STUDIES

    dl = book_html / "downloads"
    with tarfile.open(dl / "robolib-workbench-source.tar.gz") as tar:
        names = set(tar.getnames())
    for must in ("robolib-workbench/robolib/__init__.py", "robolib-workbench/Makefile",
                 "robolib-workbench/data/prp3/paper.yaml", *(f"robolib-workbench/notebooks/{s}.md" for s in STUDIES)):
        assert must in names, must
    assert "commit" in (dl / "SOURCE.txt").read_text()
    intro = (book_html / "intro.html").read_text()
    assert 'href="downloads/robolib-workbench-source.tar.gz"' in intro
    for study in STUDIES:
        claims = json.loads((dl / "claims" / f"{study}.claims.json").read_text())
        assert claims and all({"id", "statement", "criterion", "holds"} <= set(c) for c in claims)
        page = (book_html / "evidence" / f"{study}.html").read_text()      # the rerun note is on the evidence page
        assert 'href="../downloads/robolib-workbench-source.tar.gz"' in page, study
        assert f'href="../downloads/claims/{study}.claims.json"' in page, study
        assert f'href="downloads/claims/{study}.claims.json"' in intro, study


def test_figures_of_evidence_pages_and_guides_are_numbered_per_page(book_html):
    """An evidence page's figures read "Figure S1, S2, ..." like its tables, a how-to guide's "Figure 1, 2, ...";
    a chapter's keep its number ("Figure 3.1"), not a count through the book."""
    def numbers(page):
        return re.findall(r'<span class="caption-number">Figure ([^ <]+) ', page.read_text())

    seen = 0
    for folder, prefix in (("evidence", "S"), ("howto", "")):
        for page in sorted((book_html / folder).glob("*.html")):
            found = numbers(page)
            assert found == [f"{prefix}{k}" for k in range(1, len(found) + 1)], (page.name, found)
            seen += len(found)
    assert seen > 0
    assert numbers(book_html / "studies" / "prp3_roundtrip.html")[0] == "3.1"
