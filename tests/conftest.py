"""Shared fixtures: the study notebooks executed with quick parameters, in a copy of book/."""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jupytext
import pytest
from hypothesis import settings

# The suite draws the same hypothesis examples on every run (CI must not pass one day and fail the next);
# HYPOTHESIS_PROFILE=explore draws new ones each run, e.g. to look for counterexamples by hand.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
#: CPU seconds (this process's clock, :func:`refusal`) within which a bad value must be refused: before any work
#: (a quick run takes seconds of CPU, a refusal milliseconds).
PROMPT_CPU_S = 0.5
STUDIES = sorted(p.stem for p in (ROOT / "notebooks").glob("*.md"))
BIN = Path(sys.executable).parent
#: Seconds a single notebook cell may run in the quick runs before the test fails.
TIMEOUT = 600
#: The quick study runs that take longest (the quick book starts them first): about 100 s of the others' 16-30 s.
LONGEST_QUICK_STUDIES = ("clearance_dynamics",)


def solution_outputs(name: str, page: str | None = None, **namespace) -> list[str]:
    """What each exercise solution of chapter ``name`` prints: its hidden code cells after "## Exercises", run in
    order in one namespace (the study's defaults updated by ``namespace``), as the notebook runs them.

    ``page``: another page of the chapter's run, a path under the repository (e.g. ``book/studies/clearance_orbits.md``,
    the second lecture on the clearance run); default the chapter notebook ``notebooks/<name>.md``."""
    import contextlib
    import io

    import jupytext

    from robolib import study

    nb = jupytext.read(ROOT / page if page else ROOT / "notebooks" / f"{name}.md")
    start = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "## Exercises" in c.source)
    ns, out = {**study.defaults(name), **namespace}, []
    for c in nb.cells[start:]:
        if c.cell_type == "code" and "hide-cell" in c.metadata.get("tags", []):
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(c.source, ns)  # noqa: S102  (the chapter's own solution code)
            out.append(buf.getvalue())
    return out


def refusal(call, match=None) -> tuple[str, float]:
    """``call()`` raises :class:`robolib.ParameterError` matching ``match``: ``(its message, CPU seconds)``.

    The call is made twice; the first imports and caches what it needs, the second is timed on this process's
    CPU clock (:func:`time.process_time`, garbage collector off) -- not the wall clock, which other processes
    stretch on a loaded machine, so a prompt refusal cannot fail there. Compare the seconds with
    :data:`PROMPT_CPU_S`.
    """
    from robolib import ParameterError

    with pytest.raises(ParameterError, match=match):
        call()
    gc.disable()
    try:
        t0 = time.process_time()
        with pytest.raises(ParameterError, match=match) as info:
            call()
        cpu = time.process_time() - t0
    finally:
        gc.enable()
    return str(info.value), cpu


def to_ipynb(study: str, dest: Path) -> Path:
    """The MyST source of a study as an (unexecuted) .ipynb in ``dest``."""
    nb = jupytext.read(ROOT / "notebooks" / f"{study}.md")
    out = dest / f"{study}.ipynb"
    jupytext.write(nb, out)
    return out


#: The fixtures that need the quick book: tests using them run last, the book is made meanwhile (QuickBook).
BOOK_FIXTURES = ("quick_book", "built_quick_book")
#: Fixtures that wait for the quick book without naming it (tests/test_book_browser.py's ``book_html`` asks for
#: ``built_quick_book`` at run time, unless ROBOLIB_BOOK_HTML names a built book): their tests run last too.
WAITS_FOR_BOOK = (*BOOK_FIXTURES, "book_html")


def _needs_book(item) -> bool:
    return any(f in BOOK_FIXTURES for f in getattr(item, "fixturenames", ()))


def _waits_for_book(item) -> bool:
    return any(f in WAITS_FOR_BOOK for f in getattr(item, "fixturenames", ()))


def pytest_collection_modifyitems(session, config, items):
    """The tests that use the quick book run after all the others (in their own order), so that the quick book --
    a papermill run per study and a Jupyter Book build, minutes of work on one core -- is made in the background
    (:class:`QuickBook`) while the rest of the suite runs on the other core. The other tests of their files (the
    command line, papermill's refusals, the browser checks of synthetic pages) run just before them, while the
    book is still being made, not after it: the files that use the book come last, each file's tests that do not
    wait for the book first."""
    late = {item.path for item in items if _needs_book(item)}
    first = [i for i in items if i.path not in late]
    items[:] = (first + [i for i in items if i.path in late and not _waits_for_book(i)]
                + [i for i in items if i.path in late and _waits_for_book(i)])


class QuickBook:
    """A copy of book/ whose studies are the quick papermill runs (``quick=True``) and whose how-to guides run at
    their quick settings, then built to HTML.

    The work runs in a background thread: the studies (``papermill`` command line, a process each) two at a time,
    the longest first, then ``jupyter-book build``; :meth:`runs` and :meth:`build` wait for their part.
    ``failures``: study -> the end of papermill's error output, for the runs that failed. Two at a time: the studies
    are independent, and the book's chain (studies, build, the browser's page passes) must end before the tests that
    read it run last.
    """

    def __init__(self, tmp: Path):
        self.tmp, self.book = tmp, tmp / "book"
        self.failures: dict[str, str] = {}
        self._procs: set = set()
        self._stopped = False
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="quick-book")
        self._runs = self._pool.submit(self._run_studies)
        self._build = self._pool.submit(self._build_book)
        self._pages = self._pool.submit(self._page_passes)

    def _call(self, cmd: list) -> subprocess.CompletedProcess:
        if self._stopped:
            raise RuntimeError("the test session ended before the quick book was made")
        env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
        proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env, cwd=self.tmp)
        self._procs.add(proc)
        out, err = proc.communicate()
        self._procs.discard(proc)
        return subprocess.CompletedProcess(cmd, proc.returncode, out, err)

    def _run_studies(self) -> None:
        shutil.copytree(ROOT / "book", self.book, ignore=shutil.ignore_patterns("_build", "*.ipynb"))
        (self.book / "studies").mkdir(exist_ok=True)
        # the how-to guides at quick settings too (tests/test_howto.py runs them so; make book at full settings)
        for guide in (self.book / "howto").glob("*.md"):
            text = guide.read_text(encoding="utf-8")
            if "\nquick = False" in text:
                guide.write_text(text.replace("\nquick = False", "\nquick = True", 1), encoding="utf-8")
        def run(study: str) -> None:
            src = to_ipynb(study, self.tmp)
            res = self._call([BIN / "papermill", "--log-level", "WARNING", "--no-progress-bar", "--kernel", "python3",
                              "--cwd", self.tmp, "--execution-timeout", TIMEOUT, src,
                              self.book / "studies" / f"{study}.ipynb", "-p", "quick", "True"])
            if res.returncode != 0:
                self.failures[study] = f"papermill exited with {res.returncode}: {res.stderr[-4000:]}"

        longest_first = sorted(STUDIES, key=lambda s: s not in LONGEST_QUICK_STUDIES)
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="quick-study") as pool:
            list(pool.map(run, longest_first))

    def _build_book(self) -> subprocess.CompletedProcess:
        return self._call([BIN / "jupyter-book", "build", self.book, "--warningiserror", "--keep-going", "--quiet"])

    def _page_passes(self) -> dict | None:
        """The browser's passes over every page of the built book (tests/test_book_browser.py's ``page_reports``:
        the layout report and the offline rendering), in a process of their own once the book is built: they take
        minutes, and the core the book used is free while the rest of the suite runs. None if the build or the
        passes failed, or without a browser (SKIP_BROWSER=1): the fixtures then make the passes themselves, or skip."""
        if self._build.result().returncode != 0 or os.environ.get("SKIP_BROWSER") == "1":
            return None
        out = self.tmp / "page_reports.json"
        code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import test_book_browser as t; "
                "open(sys.argv[3], 'w').write(json.dumps(t.page_reports(sys.argv[2])))")
        res = self._call([BIN / "python", "-c", code, ROOT / "tests", self.book / "_build" / "html", out])
        return json.loads(out.read_text()) if res.returncode == 0 and out.exists() else None

    def page_reports(self) -> dict | None:
        """The background page passes' reports, ``{"layout": ..., "render": [checked, problems]}``, or None
        (:meth:`_page_passes`)."""
        return self._pages.result()

    def runs(self) -> tuple[Path, dict]:
        self._runs.result()
        return self.book, self.failures

    def build(self) -> tuple[Path, dict, subprocess.CompletedProcess]:
        self._runs.result()
        return self.book, self.failures, self._build.result()

    def stop(self) -> None:
        """End of the session: cancel what has not started, end a running process."""
        self._stopped = True
        self._pool.shutdown(wait=False, cancel_futures=True)
        for proc in list(self._procs):
            if proc.poll() is None:
                proc.kill()


@pytest.fixture(scope="session", autouse=True)
def _quick_book_in_background(request, tmp_path_factory):
    """Starts the quick book at the session's first test when any selected test needs it."""
    if not any(_needs_book(item) for item in request.session.items):
        yield None
        return
    book = QuickBook(tmp_path_factory.mktemp("quick"))
    _yield_to_the_book()
    yield book
    book.stop()


#: Niceness the tests' thread takes once the quick book is started: the book (papermill runs, then a Jupyter Book
#: build) is the suite's longest chain, and every test that needs it waits for it; with equal priority the rest of the
#: suite took half the cores from it and then waited minutes for it at the end.
TEST_THREAD_NICE = 5


def _yield_to_the_book() -> None:
    """Lower the scheduling priority of this thread and of the processes it starts from now on (``os.nice``). On Linux
    niceness belongs to a thread, so the quick book's thread, started before, and the processes it starts keep
    theirs; the tests fill the cores the book leaves. Elsewhere nothing changes."""
    if sys.platform.startswith("linux"):
        os.nice(TEST_THREAD_NICE)


@pytest.fixture(scope="session")
def quick_book(_quick_book_in_background):
    """A copy of book/ whose studies are the quick papermill runs, and the failures: ``(book dir, failures)``."""
    return _quick_book_in_background.runs()


@pytest.fixture(scope="session")
def built_quick_book(_quick_book_in_background):
    """The quick book built to HTML (Jupyter Book, warnings as errors): ``(book dir, failures, build process)``."""
    return _quick_book_in_background.build()


_QUICK_RESULTS: dict = {}


@pytest.fixture(scope="session")
def quick_study():
    """``quick_study(name, **params)``: the study run in this process with ``quick=True`` (cached per session).

    Tests of one study share its quick run; a test that changes a parameter calls it with that parameter.
    """
    from robolib import study as _study

    def get(name, **params):
        params = {"quick": True, **params}
        key = (name, repr(sorted(params.items())))
        if key not in _QUICK_RESULTS:
            _QUICK_RESULTS[key] = _study.run(name, **params)
        return _QUICK_RESULTS[key]

    return get
