"""iosizer: analytical queueing models for server I/O capacity planning (package root).

Subpackages: ``iosizer.model`` (pure numpy models and the family
declarations), ``iosizer.calibration`` (datasets, fitting, profiles,
extrapolation), ``iosizer.report`` (published-figure checks and scenario
files), ``iosizer.cli`` (the ``iosizer`` command) and ``iosizer.data``
(shipped measurements, examples and hardware profiles).
"""

from iosizer.errors import IosizerError

__version__ = "0.1.0"

__all__ = ["IosizerError", "__version__"]
