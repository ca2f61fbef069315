"""One error hierarchy for the whole workbench.

Every kernel that cannot return a meaningful answer raises a subclass of
:class:`RobolibError`, with a message that names the offending input and the
reason. The subclasses also derive from :class:`ValueError`, so code that
already catches ``ValueError`` keeps working.

>>> issubclass(UnreachableError, RobolibError) and issubclass(UnreachableError, ValueError)
True
"""

from __future__ import annotations


class RobolibError(Exception):
    """Base class of every error raised on purpose by robolib."""


class UnreachableError(RobolibError, ValueError):
    """A pose or actuator input that the mechanism cannot assume."""


class SingularityError(RobolibError, ValueError):
    """A configuration at (or numerically at) a kinematic or dynamic singularity."""


class ParameterError(RobolibError, ValueError):
    """A non-physical or malformed parameter (negative mass, wrong shape, ...)."""


class ParameterFileError(ParameterError):
    """A parameter file with a missing, unknown or mistyped field."""


class ConvergenceError(RobolibError, RuntimeError):
    """An iterative solver that did not converge within its budget."""


class StaleCalibrationWarning(UserWarning):
    """A calibrated parameter used after a change of what it was calibrated for (recalibrate it)."""


__all__ = ["RobolibError", "UnreachableError", "SingularityError", "ParameterError", "ParameterFileError",
           "ConvergenceError", "StaleCalibrationWarning"]

# Tracebacks and reprs name the module users import them from (``from robolib import ParameterError``).
for _cls in (RobolibError, UnreachableError, SingularityError, ParameterError, ParameterFileError, ConvergenceError):
    _cls.__module__ = "robolib"
del _cls
