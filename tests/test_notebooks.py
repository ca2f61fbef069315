"""Study notebooks run under papermill with quick parameters, and the book builds from them.

The executed quick notebooks go to a temporary copy of ``book/`` so the real
``book/studies`` (the full runs of ``make book``) is left alone.
"""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess

import jupytext
import nbformat
import papermill
import pytest
from fuzzing import names
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from conftest import BIN, ROOT, STUDIES, TIMEOUT, to_ipynb


@pytest.mark.notebooks
@pytest.mark.parametrize("study", STUDIES)
def test_study_runs_with_quick_parameters(quick_book, study):
    book, failures = quick_book
    assert study not in failures, failures.get(study)
    nb = json.loads((book / "studies" / f"{study}.ipynb").read_text())
    tags = [c.get("metadata", {}).get("tags", []) for c in nb["cells"]]
    assert sum("parameters" in t for t in tags) == 1, "exactly one cell tagged 'parameters'"
    assert any("injected-parameters" in t for t in tags)
    errors = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    images = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert images, "a study shows figures"


@pytest.mark.notebooks
@pytest.mark.parametrize("study", STUDIES)
def test_unknown_parameter_is_an_error(tmp_path, study):
    src = to_ipynb(study, tmp_path)
    out = tmp_path / "out.ipynb"
    with pytest.raises(papermill.PapermillExecutionError, match=names("unknown notebook parameter", "'n_sampels'")):
        papermill.execute_notebook(src, out, parameters={"quick": True, "n_sampels": 5},
                                   kernel_name="python3", progress_bar=False, cwd=str(tmp_path), execution_timeout=TIMEOUT)
    assert out.exists(), "a failing run keeps its partly executed notebook"


@pytest.mark.notebooks
def test_papermill_cli_reruns_with_other_parameters(tmp_path):
    """The README's command line: papermill with -p overrides (seed, sample count)."""
    src = to_ipynb("prp3_roundtrip", tmp_path)
    out = tmp_path / "rerun.ipynb"
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    subprocess.run([BIN / "papermill", "--log-level", "WARNING", "--no-progress-bar", "--execution-timeout", str(TIMEOUT), str(src), str(out),
                    "-p", "quick", "True", "-p", "seed", "7", "-p", "n_samples", "5000"],
                   check=True, env=env, cwd=tmp_path, capture_output=True)
    nb = json.loads(out.read_text())
    injected = next(c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", []))
    assert "seed = 7" in "".join(injected["source"]) and "n_samples = 5000" in "".join(injected["source"])
    text = json.dumps(nb)
    assert "reachable inputs: " in text


@pytest.mark.book
def test_book_builds_without_warnings(built_quick_book):
    book, failures, res = built_quick_book
    assert not failures, failures
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    html = book / "_build" / "html"
    for study in STUDIES:
        page = (html / "studies" / f"{study}.html").read_text()
        nb = json.loads((book / "studies" / f"{study}.ipynb").read_text())
        n_png = sum("image/png" in o.get("data", {}) for c in nb["cells"] for o in c.get("outputs", []))
        assert page.count("<img") >= n_png > 0, f"{study}: {n_png} figures in the notebook, fewer <img> in the page"
        assert "Traceback" not in page
    api = (html / "api" / "prp3.html").read_text()
    assert "robolib.prp3.forward" in api, "API reference generated from docstrings"


def test_a_chapter_states_its_length_as_its_built_page_counts_it(built_quick_book):
    """The reader box of each chapter gives its words of prose and its displayed equations as tools/page_stats.py
    counts them on the built page (folds closed; formulas and code not words), to 10 % and exactly, and its reading
    minutes at 150 words a minute: a teacher who counts gets the number the page states."""
    import importlib.util

    from bs4 import BeautifulSoup

    book, _, res = built_quick_book
    assert res.returncode == 0
    spec = importlib.util.spec_from_file_location("page_stats", ROOT / "tools" / "page_stats.py")
    stats = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stats)
    pages = sorted((book / "_build" / "html" / "studies").glob("*.html"))
    assert len(pages) == 8
    for page in pages:
        text = " ".join(BeautifulSoup(page.read_text(), "html.parser").get_text(" ").split())
        m = re.search(r"about ([\d,]+) words of prose and (\d+) displayed equations? .*?: (\d+) minutes of reading",
                      text)
        assert m, page.name
        words, eqs, minutes = int(m[1].replace(",", "")), int(m[2]), int(m[3])
        counted = stats.page_stats(page)
        soup = BeautifulSoup(page.read_text(), "html.parser").find("article")
        for node in soup.find_all("details"):
            if not node.has_attr("open"):
                node.decompose()
        for node in soup.select(".admonition.dropdown div.math"):
            node.decompose()
        assert abs(words - counted["words"]) <= 0.1 * counted["words"], (page.name, words, counted["words"])
        assert eqs == len(soup.select("div.math")), page.name
        assert minutes == round(words / 150), page.name


@pytest.mark.notebooks
@pytest.mark.parametrize("study", STUDIES)
def test_study_registers_its_findings(quick_book, study):
    """Each executed study leaves <study>.claims.json: at least six findings, each with its criterion."""
    from robolib.book.claims import extract

    book, failures = quick_book
    assert study not in failures, failures.get(study)
    claims = extract(book / "studies" / f"{study}.ipynb")
    assert (book / "studies" / f"{study}.claims.json").is_file()
    assert len(claims) >= 6, f"{study}: only {len(claims)} registered claims"
    for c in claims:
        assert {"id", "statement", "value", "criterion", "holds"} <= set(c), c
        assert c["statement"].strip() and c["criterion"].strip() and isinstance(c["holds"], bool)
    assert len({c["id"] for c in claims}) == len(claims)
    assert all(c["study"] == study for c in claims)


@pytest.mark.book
def test_book_is_self_contained_and_publishes_its_parameters(built_quick_book):
    """No page sends the reader to spec/ files; every chapter shows its parameters (the cell papermill sets, folded;
    every value with its unit on its evidence page), numbered figures, its findings."""
    book, failures, res = built_quick_book
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    html = book / "_build" / "html"
    pages = [p for p in html.rglob("*.html") if "_static" not in p.parts]
    mentions = {str(p.relative_to(html)): p.read_text().count("spec/") for p in pages}
    assert not {k: v for k, v in mentions.items() if v}, "pages citing spec/ files outside the repository"
    for study in STUDIES:
        page = (html / "studies" / f"{study}.html").read_text()
        assert "tag_parameters" in page, f"{study}: no parameters cell"
        evidence = (html / "evidence" / f"{study}.html").read_text()
        assert "unit / meaning" in evidence, f"{study}: no parameter table on its evidence page"
        n_figures = page.count("<figure")
        assert n_figures >= 1 and page.count('<span class="caption-number">Fig') >= n_figures, \
            f"{study}: figures without numbered captions"
        assert "What this chapter found" in page, f"{study}: no findings table"
        assert 'alt="_build' not in page and 'alt="../' not in page, f"{study}: alt text is a file path"
    found = (html / "found.html").read_text()
    for study in STUDIES:
        assert f"{study}.html" in found, f"the found page lists no finding of {study}"
    index = (html / "intro.html").read_text()
    assert "found.html" in index and "models/" in index, "found page and Models part in the table of contents"


def _book_extension():
    import importlib.util

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("robolib_book_ext", ROOT / "book" / "_ext" / "robolib_book.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_source_archive_names_its_commit_and_uncommitted_changes(tmp_path):
    """The book's source archive is ``git archive HEAD``; its note names the commit and any changed file."""
    import tarfile

    ext = _book_extension()
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("one\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "c"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    note = ext.source_archive(tmp_path / "src.tar.gz", repo)
    assert commit in note and "clean" in note
    (repo / "a.txt").write_text("two\n")
    note = ext.source_archive(tmp_path / "src.tar.gz", repo)
    assert "uncommitted changes in 1 file" in note and "a.txt" in note
    with tarfile.open(tmp_path / "src.tar.gz") as tar:   # the commit, not the change
        assert tar.extractfile("robolib-workbench/a.txt").read() == b"one\n"


def test_code_names_in_tables_break_after_dots_and_underscores_only():
    """A dotted or underscored code name in a table cell gets a line-break opportunity after each dot, underscore and
    slash (a ``<wbr>``: copied text is unchanged), so a narrow column breaks "core.contact.normal_force" between its
    parts, not inside a word; numbers and code outside tables are left alone."""
    ext = _book_extension()
    cell = '<table><tr><td><code><span class="pre">core.contact.normal_force</span></code> and {}</td></tr></table>'
    out = ext.breakable_names(cell.format('<span class="pre">data/gearshift/default.yaml</span>'))
    assert 'core.<wbr>contact.<wbr>normal_<wbr>force' in out and "data/<wbr>gearshift/<wbr>default.<wbr>yaml" in out
    assert out.replace("<wbr>", "") == cell.format('<span class="pre">data/gearshift/default.yaml</span>')
    for untouched in ('<table><td><span class="pre">1.5e-3</span></td></table>',
                      '<p><span class="pre">core.contact</span></p>'):
        assert ext.breakable_names(untouched) == untouched


def test_table_numbers_are_wrapped_unbreakable():
    """Numbers in table cells go in nowrap spans; text around them and code stay as they are."""
    from docutils import nodes

    ext = _book_extension()
    entry = nodes.entry("", nodes.paragraph("", "error < 1e-09 mm, 4.92e+03 and 7"),
                        nodes.paragraph("", "", nodes.literal("1e-06", "1e-06")))
    tree = nodes.document(None, None)
    tree += nodes.table("", nodes.tgroup("", nodes.tbody("", nodes.row("", entry))))
    ext._numbers_unbroken(None, tree, "x")
    nums = [n.astext() for n in tree.findall(nodes.inline) if "robolib-num" in n["classes"]]
    assert nums == ["1e-09", "4.92e+03"]            # "7" has nothing a line could break at
    assert entry.astext() == "error < 1e-09 mm, 4.92e+03 and 7\n\n1e-06"


# ==== the chapters open in JupyterLab without a change ================================================================
#
# JupyterLab (make lab) opens a chapter's .md as a notebook (jupyter/overrides.json) and saves it through jupytext's
# ipynb model: the sources are stored in exactly that form, so opening and saving changes no line.

def _jupyterlab_round_trip(text: str) -> str:
    nb = nbformat.reads(nbformat.writes(jupytext.reads(text, fmt="md:myst")), as_version=4)
    return jupytext.writes(nb, fmt="md:myst")


@pytest.mark.parametrize("study", STUDIES)
def test_a_chapter_saved_by_jupyterlab_is_unchanged(study):
    path = ROOT / "notebooks" / f"{study}.md"
    text = path.read_text()
    assert _jupyterlab_round_trip(text) == text, f"{path.name}: run tools/normalize_notebooks.py"
    assert "display_name: Python 3 (ipykernel)" in text   # the kernel name JupyterLab writes


def test_lab_opens_the_chapters_as_notebooks_and_pairs_their_outputs_outside_git():
    viewers = json.loads((ROOT / "jupyter" / "overrides.json").read_text())["@jupyterlab/docmanager-extension:plugin"]
    assert viewers["defaultViewers"] == {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}
    assert 'formats = "notebooks///md:myst,build/lab///ipynb"' in (ROOT / "jupytext.toml").read_text()
    ignored = subprocess.run(["git", "check-ignore", "build/lab/prp3_roundtrip.ipynb"], cwd=ROOT)
    assert ignored.returncode == 0



def test_display_equations_are_blocks_not_inline_math():
    """A ``$$ ... $$`` equation stands as its own block (a blank line before it, in a list item too): glued to the
    line before, MyST reads it as inline math and the page shows stray dollar signs."""
    md = MarkdownIt("commonmark").use(dollarmath_plugin, allow_space=True, allow_digits=True, double_inline=True)
    assert [t.type for t in md.parse("1. text:\n   $$\n   x\n   $$\n")].count("math_block") == 0  # the defect is seen
    inline = {}
    for path in glob.glob(str(ROOT / "notebooks" / "*.md")) + glob.glob(str(ROOT / "book" / "**" / "*.md"), recursive=True):
        tokens = md.parse(open(path, encoding="utf-8").read())
        n = sum(c.type == "math_inline_double" for t in tokens if t.children for c in t.children)
        if n:
            inline[path] = n
    assert not inline, inline


def _split_folds(text: str) -> tuple[str, str]:
    """``(main line, folds)`` of a MyST page: the folds are the dropdowns (``{dropdown}`` or an admonition with
    ``:class: dropdown``), closed until a reader opens them."""
    main, folded, fence = [], [], None
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if fence is None:
            m = re.match(r"^(`{3,}|:{3,})\{(admonition|dropdown)\}", line)
            if m and (m[2] == "dropdown" or ":class: dropdown" in lines[i + 1:i + 3]):
                fence = m[1]
                continue
            main.append(line)
        elif line.strip() == fence:
            fence = None
        else:
            folded.append(line)
    return "\n".join(main), "\n".join(folded)


def test_the_code_a_reader_can_open_does_not_glue():
    """Glue is the book's plumbing: a code cell a reader sees or can unfold (a solution, the run) shows the
    computation only; the ``glue(...)`` calls that put its numbers into the text sit in removed cells."""
    lectures = glob.glob(str(ROOT / "notebooks" / "*.md")) + glob.glob(str(ROOT / "book" / "studies" / "*.md"))
    visible = {}
    for path in lectures:
        for cell in open(path, encoding="utf-8").read().split("```{code-cell} ipython3")[1:]:
            body = cell.split("\n```")[0]
            tags = re.search(r"^:?tags: \[(.*?)\]", body, re.M)
            if "glue(" in body and not (tags and {"remove-cell", "remove-input"} & set(tags[1].split(", "))):
                visible.setdefault(path, []).append(body[:80])
    assert lectures and not visible, visible


def test_a_solution_s_code_toggle_says_it_belongs_to_the_solution():
    """The code of an exercise's solution sits under its closed Solution box as a folded cell; its toggle says it is
    the solution's (a reader who opens it sees the answer), not the generic "Show code cell content"."""
    lectures = glob.glob(str(ROOT / "notebooks" / "*.md")) + glob.glob(str(ROOT / "book" / "studies" / "*.md"))
    unlabelled = {}
    for path in lectures:
        nb = jupytext.read(path)
        start = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "## Exercises" in c.source),
                     None)
        for c in nb.cells[start or len(nb.cells):]:
            if c.cell_type == "code" and "hide-cell" in c.metadata.get("tags", []):
                if "solution" not in c.metadata.get("mystnb", {}).get("code_prompt_show", ""):
                    unlabelled.setdefault(path, []).append(c.source[:60])
    assert len(lectures) == 8 and not unlabelled, unlabelled


def test_every_display_equation_of_a_lecture_is_numbered():
    """Each ``$$ ... $$`` equation in a chapter's main line carries a label, so Sphinx numbers it (Eq. (4.2)) and the
    text and the exercises can point to it; a chapter cites its own numbers, not a source's (whose formulas are lost).
    An equation in a fold is numbered only if the page cites it, so the numbers a reader sees with the folds closed
    run without gaps (a folded Eq. (1.6) that nothing cites would make the visible numbering jump from 1.5 to 1.7)."""
    md = MarkdownIt("commonmark").use(dollarmath_plugin, allow_space=True, allow_digits=True, double_inline=True)
    assert [t.type for t in md.parse("$$\nx\n$$ (eq-a)\n\n$$\ny\n$$\n")] == ["math_block_label", "math_block"]
    assert _split_folds(":::{dropdown} T\n$$\nx\n$$\n:::\nmain") == ("main", "$$\nx\n$$")
    lectures = glob.glob(str(ROOT / "notebooks" / "*.md")) + glob.glob(str(ROOT / "book" / "studies" / "*.md"))
    unlabelled, uncited = {}, {}
    for path in lectures:
        text = open(path, encoding="utf-8").read()
        main, folds = _split_folds(text)
        types = [t.type for t in md.parse(main)]
        if types.count("math_block"):
            unlabelled[path] = types.count("math_block")
        labels = [t.info for t in md.parse(folds) if t.type == "math_block_label"]
        if [x for x in labels if f"`{x}`" not in text]:
            uncited[path] = [x for x in labels if f"`{x}`" not in text]
    assert not unlabelled, unlabelled
    assert not uncited, uncited
