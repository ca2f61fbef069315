"""Chapter *Stewart platform: U-joint Newton–Euler vs virtual work* (notebook ``notebooks/stewart_timing.md``, study ``stewart_timing``).

The chapter's experiments over the library :mod:`robolib.stewart`; ``run(**params)`` is the whole chapter
(``robolib.study.run("stewart_timing", ...)``, ``python -m robolib.study stewart_timing``).

* :mod:`robolib.studies.stewart_timing.study` -- the chapter's study function :func:`run` and its declared ``PARAMETERS``;
* :mod:`robolib.studies.stewart_timing.settings` -- the chapter's settings and the constants its claims' criteria use;
* :mod:`robolib.studies.stewart_timing.timing` -- the timing experiments;
* :mod:`robolib.studies.stewart_timing.figures` -- the chapter's figures, animations and Explore panels.
"""

from __future__ import annotations

from robolib.studies.stewart_timing.study import PARAMETERS, run

__all__ = ["PARAMETERS", "run"]
