"""iosizer: analytical queueing models for server I/O capacity planning.

The public API (see :mod:`iosizer.api`)::

    import iosizer
    iosizer.families()                      # every model family's name
    fam = iosizer.family("hba")             # one family: .parameters, .columns,
    fam.shipped(); fam.predict(...)         # .shipped(), .predict(), .calibrate(),
    fam.calibrate("data.csv"); fam.example()  # .example()
    iosizer.load_profile("p.json"); iosizer.extrapolate([p1, p2], cpu_speed=1.5)
    iosizer.ask("size hba", tenant_iops=[250000, 120000], target_response_us=200)
                                            # any command's --format json answer
    fam.ask("queue", arrival_rate=[0.5, 0.9])  # a declared question's Answer (families with a solve)

Subpackages: ``iosizer.model`` (pure numpy models and the family
declarations), ``iosizer.calibration`` (datasets, fitting, profiles,
extrapolation), ``iosizer.report`` (published-figure checks and scenario
files), ``iosizer.cli`` (the ``iosizer`` command) and ``iosizer.data``
(shipped measurements, examples and hardware profiles), ``iosizer.units``
(the unit vocabulary). Every deliberate error derives from
:class:`IosizerError`.
"""

from typing import TYPE_CHECKING

from iosizer._version import __version__
from iosizer.api import FitReport, ModelFamily, Prediction, extrapolate, families, family, load_profile
from iosizer.errors import IosizerError

if TYPE_CHECKING:  # iosizer.ask loads the command catalogue (pydantic) on first use
    from iosizer.catalogue import ask

__all__ = [
    "Answer",
    "FitReport",
    "IosizerError",
    "ModelFamily",
    "Prediction",
    "__version__",
    "ask",
    "extrapolate",
    "families",
    "family",
    "load_profile",
]


def __getattr__(name: str) -> object:
    if name == "ask":  # any command's answer (iosizer.commands): declared commands, questions, the rest
        from iosizer.catalogue import ask

        return ask
    if name == "Answer":  # a declared question's answer; its module loads on first use
        from iosizer.calibration.questions import Answer

        return Answer
    raise AttributeError(f"module 'iosizer' has no attribute {name!r}")
