"""iosizer: analytical queueing models for server I/O capacity planning (package root).

Subpackages (see DESIGN.md): ``iosizer.model`` (pure numpy models),
``iosizer.calibration`` (datasets, fitting, profiles), ``iosizer.cli`` (the
``iosizer`` command) and ``iosizer.data`` (shipped measurements and profiles).
"""

from iosizer.errors import IosizerError

__version__ = "0.1.0"

__all__ = ["IosizerError", "__version__"]
