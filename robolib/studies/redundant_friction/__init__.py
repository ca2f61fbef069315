"""Chapter *Redundant planar robot: friction comparison* (notebook ``notebooks/redundant_friction.md``, study ``redundant_friction``).

The chapter's experiments over the library :mod:`robolib.redundant`; ``run(**params)`` is the whole chapter
(``robolib.study.run("redundant_friction", ...)``, ``python -m robolib.study redundant_friction``).

* :mod:`robolib.studies.redundant_friction.study` -- the chapter's study function :func:`run` and its declared ``PARAMETERS``;
* :mod:`robolib.studies.redundant_friction.settings` -- the chapter's settings and the constants its claims' criteria use;
* :mod:`robolib.studies.redundant_friction.figures` -- the chapter's figures, animations and Explore panels.
"""

from __future__ import annotations

from robolib.studies.redundant_friction.study import PARAMETERS, run

__all__ = ["PARAMETERS", "run"]
