"""Every chapter figure is drawn at the width the book shows it, with readable text, and none of its texts overlap.

The book's content column is 672 px wide (Chromium, 1280-px window); a figure's PNG (``StudyResult.figure``:
``savefig(dpi=FIGURE_DPI, bbox_inches="tight")``) is drawn at most that wide (``COLUMN_PX``), so the book shows it at
its natural size, and its smallest text -- tick labels and legends included (``robolib.book.notebook.smallest_font_px``)
-- is at least ``MIN_TEXT_PX`` as displayed (tests/test_book_browser.py checks the same on the built book). Figures
are drawn from the quick runs (shared with tests/test_study_*.py).

Overlap: the tick labels, axis labels and titles of every axes, and every legend's box, drawn with Agg; two of
them that intersect by more than ``OVERLAP_SLACK_PX`` are a defect (minor log labels running into each other, the
x labels of neighbouring panels, a title over the next panel's title). A legend counts as one box (its own
entries are not compared with each other). Labelled drawings (``DRAWINGS``) are checked for width only.
"""

from __future__ import annotations

import io
import itertools

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from robolib import study
from robolib.book.notebook import smallest_font_px
from robolib.core import drawing

#: px: the book's text column (a 1280-px window): a figure is drawn at most this wide, and shown at its natural size.
COLUMN_PX = 672
#: px: the smallest text a figure may show as displayed.
MIN_TEXT_PX = 9.0
#: px: two text boxes may touch by this much (antialiasing, rounding of the extents) and not count as overlapping.
OVERLAP_SLACK_PX = 1.0
#: The dpi a notebook passes to ``res.figure`` where it is not FIGURE_DPI (notebooks/*.md; none at present).
NOTEBOOK_DPI: dict = {}
#: Labelled drawings: their annotation texts sit on the drawing by design, so only their width is checked.
DRAWINGS = {"mechanism"}


def png_width(fig: Figure, dpi: float) -> int:
    """Width [px] of ``fig`` saved as the notebook shows it (``StudyResult.figure``)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return Image.open(buf).size[0]


def draw(fig: Figure):
    """Draw ``fig`` on an Agg canvas at its own dpi (layout engine, ticks and titles placed as in a PNG); its renderer."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def text_boxes(fig: Figure, renderer) -> list[tuple[str, int, object]]:
    """``(description, axes index, Bbox)`` [display px] of every visible non-empty label, title and legend."""
    boxes = []
    for k, ax in enumerate(fig.axes):
        texts = [ax.title, ax._left_title, ax._right_title]
        if ax.axison:
            texts += [ax.xaxis.label, ax.yaxis.label]
            for axis in (ax.xaxis, ax.yaxis):  # the ticks drawn (in the view), as Axis.draw selects them
                texts += [t for tick in axis._update_ticks() for t in (tick.label1, tick.label2)]
        for t in texts:
            if t.get_visible() and t.get_text().strip():
                boxes.append((f"axes {k} {t.get_text()!r}", k, t.get_window_extent(renderer)))
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            boxes.append((f"axes {k} legend", k, leg.get_window_extent(renderer)))
    return boxes


def overlaps(fig: Figure, renderer=None) -> list[str]:
    """Pairs of text boxes of ``fig`` that intersect by more than OVERLAP_SLACK_PX in both directions.

    ``renderer``: of a draw of ``fig`` just made (:func:`draw`); without it the figure is drawn here.
    """
    found = []
    for (na, _, a), (nb, _, b) in itertools.combinations(text_boxes(fig, renderer or draw(fig)), 2):
        dx = min(a.x1, b.x1) - max(a.x0, b.x0)
        dy = min(a.y1, b.y1) - max(a.y0, b.y0)
        if dx > OVERLAP_SLACK_PX and dy > OVERLAP_SLACK_PX:
            found.append(f"{na} / {nb}")
    return found


def test_overlap_check_sees_colliding_labels():
    """The check is not blind: two narrow panels with long x labels, and minor log labels on a short decade."""
    fig = Figure(figsize=(4, 2), layout="tight")
    a0, a1 = fig.subplots(1, 2)
    for ax in (a0, a1):
        ax.set_xlabel("a long axis label that runs into the next panel")
    assert any("a long axis label" in p for p in overlaps(fig))
    fig = Figure(figsize=(3, 2), layout="tight")
    ax = fig.subplots()
    ax.loglog([0.02, 0.5], [1, 2])
    assert overlaps(fig)
    fig = Figure(figsize=(6, 2), layout="tight")
    a0, a1 = fig.subplots(1, 2)
    a0.set_xlabel("short")
    a1.set_xlabel("labels")
    assert overlaps(fig) == []


@pytest.mark.parametrize("name", sorted(study.STUDIES))
def test_chapter_figures_fit_the_column_without_overlapping_text(quick_study, name):
    res = quick_study(name)
    wide, small, crowded = {}, {}, {}
    for fig_name, fig in res.figures.items():
        dpi = NOTEBOOK_DPI.get((name, fig_name), drawing.FIGURE_DPI)
        if (w := png_width(fig, dpi)) > COLUMN_PX:
            wide[fig_name] = w
        if (font := smallest_font_px(fig, dpi) * min(1.0, COLUMN_PX / w)) < MIN_TEXT_PX:
            small[fig_name] = round(font, 1)
        if fig_name not in DRAWINGS and (found := overlaps(fig)):
            crowded[fig_name] = found
    assert not wide, f"PNG wider than the {COLUMN_PX}-px column: {wide}"
    assert not small, f"smallest text under {MIN_TEXT_PX} px as displayed: {small}"
    assert not crowded, crowded


def test_orbit_figure_of_the_full_run_fits_the_column(quick_study):
    """The full run has three orbit cases (a quick run one): the quick case drawn three times."""
    from robolib.studies.clearance_dynamics.orbit_study import orbits_figure

    (case, d), = quick_study("clearance_dynamics").data["orbits"].items()
    fig = orbits_figure({case: d, (case[0] + 1.0, case[1]): d, (case[0] + 2.0, case[1]): d})
    assert png_width(fig, drawing.FIGURE_DPI) <= COLUMN_PX
    assert overlaps(fig) == []
