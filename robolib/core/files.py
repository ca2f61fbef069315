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

#: Permissions of a written file (``mkstemp`` alone would make it private to its owner).
FILE_MODE = 0o644


def atomic_write(path, write: Callable, *, binary: bool = True) -> Path:
    """Write ``path`` by ``write(f)`` on a temporary file in the same folder, then rename it into place.

    ``write`` receives an open file (bytes when ``binary``, UTF-8 text otherwise). If it raises,
    the temporary file is removed and ``path`` keeps its old content. Returns ``path``.
    """
    path = Path(path)
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
    return atomic_write(path, lambda f: f.write(text), binary=False)


__all__ = ["FILE_MODE", "atomic_write", "atomic_write_text"]
