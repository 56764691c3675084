"""Typed errors shared by every layer.

Every error the tool raises on purpose derives from :class:`IosizerError`, so
the CLI can turn any of them into one line on stderr and exit status 2, and an
embedding program can catch them all with one ``except``. Each message reads
well as a single line and names the offending value.
"""

from __future__ import annotations


class IosizerError(Exception):
    """Base class of every error iosizer raises deliberately."""


class InputError(IosizerError, ValueError):
    """A parameter value is outside its domain (negative, NaN, not an integer...)."""


class PluginError(InputError):
    """An installed plugin's family module does not import, or declares no family."""


class UnstableQueueError(InputError):
    """An open queue is offered utilisation at or above 1: no steady state exists."""

    def __init__(self, utilization: float, where: str = "queue") -> None:
        self.utilization = float(utilization)
        super().__init__(
            f"unstable {where}: utilization {self.utilization:.6g} >= 1 "
            "(arrival rate must stay below servers x service rate)"
        )


class ConsistencyError(IosizerError, ArithmeticError):
    """A solver result failed its own self-check (Little's law or a bound).

    Raised instead of returning a number that is known to be wrong; it points
    at a bug or at numerical breakdown, never at user input.
    """


class ConvergenceError(IosizerError, ArithmeticError):
    """An iterative solver did not reach its tolerance within its iteration cap."""


class DatasetError(IosizerError):
    """A measurement CSV is malformed; the message names file, line and column."""


class CalibrationError(IosizerError):
    """A fit could not be carried out (too few points, model failure...)."""


class ProfileError(IosizerError):
    """A profile file is corrupt, for another model, or otherwise unusable."""


class ScenarioError(InputError):
    """A scenario file is missing, malformed or invalid; the message names the file and key path."""


class TimeBudgetError(InputError):
    """A simulation's wall-time budget (``--max-seconds``) is too small for the replications it needs.

    The message says how long one replication was observed or projected to
    take and what to change (``--max-seconds``, ``--run-length``).
    """


class MissingExtraError(IosizerError, ImportError):
    """An optional dependency is not installed; the message names the extra that brings it.

    ``extra`` is the name in ``pip install 'iosizer[EXTRA]'``.
    """

    def __init__(self, feature: str, package: str, extra: str) -> None:
        self.extra = extra
        self.package = package
        super().__init__(f"{feature} needs {package}: pip install 'iosizer[{extra}]'")
