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

Subpackages: ``iosizer.model`` (pure numpy models and the family
declarations), ``iosizer.calibration`` (datasets, fitting, profiles,
extrapolation), ``iosizer.report`` (published-figure checks and scenario
files), ``iosizer.cli`` (the ``iosizer`` command) and ``iosizer.data``
(shipped measurements, examples and hardware profiles). Every deliberate
error derives from :class:`IosizerError`.
"""

from iosizer.api import FitReport, ModelFamily, Prediction, extrapolate, families, family, load_profile
from iosizer.cli.ask import ask
from iosizer.errors import IosizerError

__version__ = "0.1.0"

__all__ = [
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
