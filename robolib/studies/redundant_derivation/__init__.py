"""Chapter *Redundant planar robot: derivation* (notebook ``notebooks/redundant_derivation.md``, study ``redundant_derivation``).

The chapter's experiments over the library :mod:`robolib.redundant`; ``run(**params)`` is the whole chapter
(``robolib.study.run("redundant_derivation", ...)``, ``python -m robolib.study redundant_derivation``).

* :mod:`robolib.studies.redundant_derivation.study` -- the chapter's study function :func:`run` and its declared ``PARAMETERS``;
* :mod:`robolib.studies.redundant_derivation.experiments` -- the chapter's model experiments.
"""

from __future__ import annotations

from robolib.studies.redundant_derivation.study import PARAMETERS, run

__all__ = ["PARAMETERS", "run"]
