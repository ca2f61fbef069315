"""Small Sphinx extension for the robolib book (offline, clean pages).

* Removes duplicate ``<script>``/``<link>`` entries: with Jupyter Book 1.x some
  extensions (sphinx-thebe, sphinx-togglebutton) register their inline scripts
  twice, which throws "Identifier ... has already been declared" in the browser.
* Loads ``vendor/mathjax_hub_shim.js`` after MathJax 3: the widget manager that
  renders saved widget state still calls the MathJax 2 API (``MathJax.Hub.Queue``).
* Puts what the book cites into the site (``downloads/``): a source archive of the
  workbench at the built commit (``git archive HEAD``, with a note when the working tree
  had uncommitted changes) and every study's claims JSON.
* Loads the vendored Noto Sans SC font CSS (``vendor/fonts/noto-sans-sc``) so Chinese
  quotations (``lang="zh"``) read on a machine without a CJK font.
* Numbers the figures of the unnumbered parts per page (:data:`PAGE_FIGURE_PREFIX`): Sphinx counts
  them through the whole book ("Figure 11" opening an evidence page); an evidence page's figures are
  "Figure S1, S2, ..." like its tables, a how-to guide's "Figure 1, 2, ...".
"""

from __future__ import annotations


def _key(asset):
    attrs = getattr(asset, "attributes", {}) or {}
    name = getattr(asset, "filename", asset) if hasattr(asset, "attributes") else asset
    return (str(name or ""), tuple(sorted((k, str(v)) for k, v in attrs.items())))


def _dedup(app, pagename, templatename, context, doctree):
    for name in ("script_files", "css_files"):
        assets = context.get(name)
        if not assets:
            continue
        seen, unique = set(), []
        for asset in assets:
            k = _key(asset)
            if k not in seen:
                seen.add(k)
                unique.append(asset)
        assets[:] = unique


def setup(app):
    app.connect("html-page-context", _dedup, priority=900)
    app.connect("html-page-context", _breakable_names)
    # after MathJax (deferred scripts run in document order) and before the widgets render on 'load'
    app.add_js_file("../vendor/mathjax_hub_shim.js", priority=999, defer="defer")
    app.add_css_file("../vendor/fonts/noto-sans-sc/index.css")
    app.connect("build-finished", _downloads)
    app.connect("doctree-resolved", _numbers_unbroken)
    app.connect("env-get-updated", number_figures_per_page, priority=900)  # after Sphinx assigns its numbers
    _setup_claims(app)
    _setup_found(app)
    app.add_role("robolib-value", value_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# ---- figure numbers of the unnumbered parts ----------------------------------------

#: Folder of the pages whose figures are numbered per page -> the prefix of their numbers.
PAGE_FIGURE_PREFIX = {"evidence/": "S", "howto/": ""}


def renumbered(fignumbers: dict, prefix: str) -> dict:
    """``{figtype: {id: (number,)}}`` numbered 1, 2, ... per type in the page's order, with ``prefix``.

    >>> renumbered({"figure": {"b": (12,), "a": (11,)}}, "S")
    {'figure': {'a': ('S1',), 'b': ('S2',)}}
    """
    out = {}
    for figtype, numbers in fignumbers.items():
        order = sorted(numbers, key=lambda fid: numbers[fid])
        out[figtype] = {fid: (f"{prefix}{k}",) for k, fid in enumerate(order, 1)}
    return out


def number_figures_per_page(app, env) -> list[str]:
    """Renumber the figures of the pages under :data:`PAGE_FIGURE_PREFIX` per page (captions and ``numref``
    both read ``env.toc_fignumbers``); return the pages whose numbers changed."""
    changed = []
    for docname, fignumbers in env.toc_fignumbers.items():
        prefix = next((p for folder, p in PAGE_FIGURE_PREFIX.items() if docname.startswith(folder)), None)
        if prefix is None or not fignumbers:
            continue
        new = renumbered(fignumbers, prefix)
        if new != fignumbers:
            env.toc_fignumbers[docname] = new
            changed.append(docname)
    return changed


# ---- parameter tables from data/ files, claims JSON, the "found" page --------------

from docutils import nodes  # noqa: E402
from docutils.parsers.rst import directives  # noqa: E402
from sphinx.util.docutils import SphinxDirective  # noqa: E402


class ParametersDirective(SphinxDirective):
    """```{robolib-parameters} redundant/default.yaml``` -- every field of a data/ file, with units."""

    required_arguments = 1
    option_spec = {"caption": directives.unchanged}

    def run(self):
        from robolib.book.notebook import parameter_table
        from robolib.core.params import resolve_data_path

        path = self.arguments[0]
        self.env.note_dependency(str(resolve_data_path(path)))
        text = parameter_table([path], title=self.options.get("caption") or f"Parameters of `data/{path}`")
        container = nodes.container(classes=["robolib-parameters"])
        self.state.nested_parse(text.splitlines(), self.content_offset, container)
        return [container]


def _write_claims_json(app):
    """``studies/<study>.claims.json`` beside every executed study notebook in the book."""
    from pathlib import Path

    from robolib.book.claims import extract

    for nb in sorted((Path(app.srcdir) / "studies").glob("*.ipynb")):
        try:
            extract(nb)
        except Exception as exc:  # a notebook without a register: say so, the tests fail on it
            from sphinx.util import logging

            logging.getLogger(__name__).warning(f"claims: {exc}")


def _setup_claims(app):
    app.add_directive("robolib-parameters", ParametersDirective)
    app.connect("builder-inited", _write_claims_json)
    app.connect("build-finished", _widget_fonts)


def _widget_fonts(app, exception):
    """Copy the widget manager's icon fonts to ``<page dir>/@jupyter-widgets/``.

    Two of the bundles inside the vendored manager compute their font URL from
    their AMD module id, relative to the *page* (``studies/@jupyter-widgets/…``),
    whatever require's ``paths`` say. The browser asks for those fonts as soon
    as a widget page shows a glyph the system fonts lack (⚠, ✓): without the
    copies that is a failed request and a console error. Only the woff2 files
    are needed (Chromium and Firefox take the first source they can load).
    """
    import shutil
    from pathlib import Path

    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    fonts = sorted((out / "vendor" / "html-manager").glob("*.woff2"))
    dirs = {p.parent for p in out.rglob("*.html")
            if "vendor" not in p.parts and "application/vnd.jupyter.widget-state+json" in p.read_text(errors="ignore")}
    for d in dirs:
        dest = d / "@jupyter-widgets"
        dest.mkdir(exist_ok=True)
        for f in fonts:
            shutil.copyfile(f, dest / f.name)


class FoundDirective(SphinxDirective):
    """```{robolib-found} 004``` -- a source's own claims beside the workbench's findings.

    The source claims come from ``data/sources/<seed>.yaml`` (quoted from the seed,
    translated); the findings from every ``studies/*.claims.json`` whose claims
    have ``source == seed``. A finding with ``answers: <claim id>`` is listed under
    that source claim, the others under "Further findings".
    """

    required_arguments = 1

    def run(self):
        import json
        from pathlib import Path

        import yaml

        from robolib.book.claims import claims_table, record_status, status_mark
        from robolib.core.params import DATA_DIR

        seed = self.arguments[0]
        src_file = DATA_DIR / "sources" / f"{seed}.yaml"
        self.env.note_dependency(str(src_file))
        source = yaml.safe_load(src_file.read_text()) if src_file.is_file() else {"claims": []}
        findings = []
        for f in sorted((Path(self.env.srcdir) / "studies").glob("*.claims.json")):
            self.env.note_dependency(str(f))
            findings += [c for c in json.loads(f.read_text()) if c.get("source") == seed]

        def table(rows):
            return claims_table(["finding", "value", "criterion", "holds", "chapter"], [
                [_claim_href(c["id"], c["study"], c["statement"]), c["text"], c["criterion"],
                 status_mark(record_status(c)),
                 f"{{doc}}`/studies/{c['study']}`"] for c in rows])

        lines = []
        used = set()
        for sc in source.get("claims", []):
            lines += [f"**{sc['id']}** ({sc.get('where', '')}):", "", f"> {sc['quote']}", ""]
            if sc.get("original"):   # the source's own words: Chinese, set in the vendored Noto Sans SC
                lines += [f'> <span lang="zh">{sc["original"]}</span>', ""]
            mine = [c for c in findings if c.get("answers") == sc["id"]]
            used.update(c["id"] for c in mine)
            if mine:
                lines += ["What the workbench found:", "", *table(mine).splitlines(), ""]
            else:
                lines += ["*No registered finding tests this claim yet.*", ""]
        rest = [c for c in findings if c["id"] not in used]
        if rest:
            lines += ["**Further findings** of the workbench on this source:", "", *table(rest).splitlines(), ""]
        if not findings:
            lines += ["*No executed study of this source is in the book.*", ""]
        container = nodes.container(classes=["robolib-found"])
        self.state.nested_parse(lines, self.content_offset, container)
        return [container]


class FoundSummaryDirective(SphinxDirective):
    """```{robolib-found-summary} 003 000 001 004``` -- one row per source claim with the verdict its findings give.

    The verdict is computed by :func:`robolib.book.sources.source_verdict` from the rules in
    ``data/sources/<seed>.yaml`` and the findings of every ``studies/*.claims.json`` of this build.
    """

    required_arguments = 1
    optional_arguments = 10

    def run(self):
        import json
        from pathlib import Path

        from robolib.book.claims import claims_table
        from robolib.book.sources import summary_rows
        from robolib.core.params import DATA_DIR

        findings = {}
        for f in sorted((Path(self.env.srcdir) / "studies").glob("*.claims.json")):
            self.env.note_dependency(str(f))
            findings.update({c["id"]: c for c in json.loads(f.read_text())})
        for seed in self.arguments:
            self.env.note_dependency(str(DATA_DIR / "sources" / f"{seed}.yaml"))
        rows = []
        for cid, title, short, verdict, ids in summary_rows(self.arguments, findings):
            studies = list(dict.fromkeys(findings[i]["study"] for i in ids if i in findings))
            where = " ".join(f"({{doc}}`/studies/{st}`)" for st in studies) if title else ""
            # an id breaks after an underscore where the column must, never inside a word (<wbr>: copied text unchanged)
            links = [_claim_href(i, findings[i]["study"], f"<code>{i.replace('_', '_<wbr>')}</code>") if i in findings
                     else f"`{i}`" for i in ids]
            rows.append([f"**{cid}**" + (f" ({title})" if title else ""), short, verdict,
                         (", ".join(links) or "—") + (f" {where}" if where else "")])
        text = claims_table(["source claim", "what it says (short)", "verdict", "findings that decide it"], rows)
        container = nodes.container(classes=["robolib-found-summary"])
        self.state.nested_parse(text.splitlines(), self.content_offset, container)
        return [container]


def _claim_href(claim_id: str, study: str, text: str) -> str:
    """``text`` linked to claim ``claim_id``'s row on the evidence page of ``study`` (from the found page, at the
    book's root)."""
    from robolib.book.claims import claim_anchor

    return f'<a href="evidence/{study}.html#{claim_anchor(claim_id)}">{text}</a>'


def _setup_found(app):
    app.add_directive("robolib-found", FoundDirective)
    app.add_directive("robolib-found-summary", FoundSummaryDirective)


# ---- constants of the code in the prose: {robolib-value}`robolib.core.nonlinear.LADDER_MIN_SLOPE` -----------

def code_value(target: str) -> str:
    """The text of a constant of robolib, ``"module.NAME"`` or ``"module.NAME:format"``.

    ``robolib.core.nonlinear.LADDER_FIT`` -> ``"4"``; ``...REL_TOL:.0e`` -> ``"1e-06"``. A Models page states
    the constants and rules of the code through this role, so the page cannot drift from the code.
    """
    import importlib

    dotted, _, fmt = target.partition(":")
    module, _, name = dotted.rpartition(".")
    value = importlib.import_module(module)
    for part in name.split("/"):
        value = getattr(value, part) if not isinstance(value, dict) else value[part]
    if fmt:
        return format(value, fmt)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (tuple, list)):
        return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    return str(value)


def value_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """Sphinx role ``{robolib-value}`module.NAME[:format]``` -> the constant's value as text."""
    try:
        return [nodes.Text(code_value(text.strip()))], []
    except Exception as exc:  # noqa: BLE001  (reported as a build error: the page names a constant that is gone)
        msg = inliner.reporter.error(f"robolib-value: {text!r}: {type(exc).__name__}: {exc}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]


# ---- what the book cites, in the site: source archive and claims JSON ------------------------------------

#: Site paths of the downloads (the chapters link them: robolib.book.notebook.SOURCE_ARCHIVE, CLAIMS_DIR).
DOWNLOADS = "downloads"


def _repo_root():
    """The workbench's repository: the checkout robolib is imported from (not the book's source dir,
    which the tests copy elsewhere)."""
    from pathlib import Path

    import robolib

    return Path(robolib.__file__).resolve().parent.parent


def source_archive(dest, repo=None) -> str:
    """Write ``git archive`` of ``HEAD`` of ``repo`` to ``dest`` (a .tar.gz); return the note on what it holds.

    The note names the commit and, when the working tree differs from it, the files that do
    (the archive holds the commit, not those changes).
    """
    import subprocess

    repo = repo or _repo_root()

    def git(*args):
        return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout

    commit = git("rev-parse", "HEAD").strip()
    subprocess.run(["git", "-C", str(repo), "archive", "--format=tar.gz", "--prefix=robolib-workbench/",
                    "-o", str(dest), "HEAD"], check=True, capture_output=True)
    dirty = [line for line in git("status", "--porcelain", "--untracked-files=no").splitlines() if line.strip()]
    note = (f"{dest.name}: the robolib workbench (code, data, notebooks, book sources, tests) at commit {commit}, "
            f"made by `git archive HEAD` when this book was built.\n")
    if dirty:
        note += (f"\nThe working tree had uncommitted changes in {len(dirty)} file(s) when the book was built; the "
                 f"archive holds the commit, not these changes:\n" + "\n".join(dirty) + "\n")
    else:
        note += "The working tree was clean: the book was built from exactly this commit.\n"
    return note


def _downloads(app, exception):
    """``downloads/`` in the built site: the source archive, its note, and ``claims/<study>.claims.json``."""
    import shutil
    from pathlib import Path

    from sphinx.util import logging

    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir) / DOWNLOADS
    (out / "claims").mkdir(parents=True, exist_ok=True)
    for f in sorted((Path(app.srcdir) / "studies").glob("*.claims.json")):
        shutil.copyfile(f, out / "claims" / f.name)
    try:
        note = source_archive(out / "robolib-workbench-source.tar.gz")
    except Exception as exc:  # noqa: BLE001  (no git, not a clone: the book says so in the note)
        logging.getLogger(__name__).warning(f"source archive: {exc}")
        note = f"No source archive: this book was not built from a git clone ({exc}).\n"
    (out / "SOURCE.txt").write_text(note)


# ---- numbers in table cells are never split over two lines ("4.92e+" / "03") -----------------------------

import re as _re  # noqa: E402

#: A number as tables print it: sign, digits with separators, decimals, exponent, percent.
NUMBER_IN_CELL = _re.compile(r"[-+−]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][-+−]?\d+)?%?")


TABLE_HTML = _re.compile(r"<table\b.*?</table>", _re.S)
PRE_HTML = _re.compile(r'(<span class="pre">)([^<]*)(</span>)')
NAME_BREAK = _re.compile(r"(\.(?=[A-Za-z_])|_(?=[A-Za-z0-9])|/(?=[A-Za-z0-9_]))")


def breakable_names(html: str) -> str:
    """Code names in the tables of ``html`` break after a dot, an underscore or a slash (a ``<wbr>`` there), not
    inside a word: CSS lets a cell's code wrap only where it must (``overflow-wrap: break-word``), so a column is as
    narrow as the longest part of a name, not of a whole dotted path. Copied text is unchanged.

    >>> breakable_names('<table><td><code><span class="pre">core.contact.normal_force</span></code></td></table>')
    '<table><td><code><span class="pre">core.<wbr>contact.<wbr>normal_<wbr>force</span></code></td></table>'
    >>> breakable_names('<p><span class="pre">a.b</span></p><table><span class="pre">1.5e-3</span></table>')
    '<p><span class="pre">a.b</span></p><table><span class="pre">1.5e-3</span></table>'
    """
    def name(m):
        return m[1] + NAME_BREAK.sub(r"\1<wbr>", m[2]) + m[3]
    return TABLE_HTML.sub(lambda t: PRE_HTML.sub(name, t[0]), html)


def _breakable_names(app, pagename, templatename, context, doctree):
    if "body" in context:
        context["body"] = breakable_names(context["body"])


def _numbers_unbroken(app, doctree, docname):
    """Wrap every number in a table cell in ``<span class="robolib-num">`` (CSS: ``white-space: nowrap``).

    Browsers may break a line after the ``-``/``+`` of an exponent (``1e-`` / ``06``) when a column
    is narrow; inside the span they cannot, and the table scrolls sideways instead.
    """
    for entry in doctree.findall(nodes.entry):
        for text in list(entry.findall(nodes.Text)):
            parent = text.parent
            if parent is None or isinstance(parent, (nodes.literal, nodes.math, nodes.raw, nodes.FixedTextElement)):
                continue
            s = str(text)
            hits = [m for m in NUMBER_IN_CELL.finditer(s) if len(m.group()) >= 3 and any(c in m.group() for c in "eE-+−.,%")]
            if not hits:
                continue
            pieces, pos = [], 0
            for m in hits:
                if m.start() > pos:
                    pieces.append(nodes.Text(s[pos:m.start()]))
                pieces.append(nodes.inline(m.group(), m.group(), classes=["robolib-num"]))
                pos = m.end()
            if pos < len(s):
                pieces.append(nodes.Text(s[pos:]))
            parent.replace(text, pieces)
