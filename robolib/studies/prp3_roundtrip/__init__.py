"""Chapter *3-PRP FK/IK round trip* (notebook ``notebooks/prp3_roundtrip.md``, study ``prp3_roundtrip``).

The chapter's experiments over the library :mod:`robolib.prp3`; ``run(**params)`` is the whole chapter
(``robolib.study.run("prp3_roundtrip", ...)``, ``python -m robolib.study prp3_roundtrip``).

* :mod:`robolib.studies.prp3_roundtrip.study` -- the chapter's study function :func:`run` and its declared ``PARAMETERS``.
"""

from __future__ import annotations

from robolib.studies.prp3_roundtrip.study import PARAMETERS, run

__all__ = ["PARAMETERS", "run"]
