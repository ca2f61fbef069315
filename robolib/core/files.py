"""Files robolib writes are whole or absent: written to a temporary file beside the target, then renamed.

A reader (the next book build, a test, another process) never sees a half-written store,
claims file or benchmark record: :func:`os.replace` swaps the complete file in at once
(atomic on POSIX and Windows within one folder). An interrupted writer leaves the old file
as it was, and at most a hidden ``.<name>.*.tmp`` beside it.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> atomic_write_text(d / "a.json", '{"x": 1}\\n').read_text()
'{"x": 1}\\n'
>>> atomic_write(d / "b.bin", lambda f: f.write(b"\\x00\\x01")).read_bytes()
b'\\x00\\x01'
>>> sorted(p.name for p in d.iterdir())          # no temporary file is left
['a.json', 'b.bin']
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

from robolib.core.errors import ParameterError

#: Permissions of a written file (``mkstemp`` alone would make it private to its owner).
FILE_MODE = 0o644


def _target(path) -> Path:
    """``path`` as a Path, refused by name unless it is a non-empty file path (str or os.PathLike) that is no folder."""
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)) or str(path) in ("", "."):
        raise ParameterError(f"path = {path!r:.80} is not valid: path must be a file path (str or pathlib.Path)")
    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"path = {str(path)!r} is not valid: it is a folder, not a file")
    return path


def atomic_write(path, write: Callable, *, binary: bool = True) -> Path:
    """Write ``path`` by ``write(f)`` on a temporary file in the same folder, then rename it into place.

    ``write`` receives an open file (bytes when ``binary``, UTF-8 text otherwise). If it raises,
    the temporary file is removed and ``path`` keeps its old content. Returns ``path``.
    """
    path = _target(path)
    if not callable(write):
        raise ParameterError(f"write = {write!r:.80} is not valid: write must be a function of the open file")
    if not isinstance(binary, bool):
        raise ParameterError(f"binary = {binary!r:.80} is not valid: binary must be True or False")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` whole (see :func:`atomic_write`)."""
    if not isinstance(text, str):
        raise ParameterError(f"text must be a str, got {type(text).__name__}")
    return atomic_write(path, lambda f: f.write(text), binary=False)


__all__ = ["FILE_MODE", "atomic_write", "atomic_write_text"]
