"""Measured errors of the approximations that remain, against simulation (one CSV per approximation).

:func:`load` reads one grid; :func:`iosizer.model.percentiles.percentile_approximation_error` looks a
point up in it. A declared question's percentile hook states the error where it passes
:data:`ERROR_RULE_PCT` (issue 28).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ERROR_RULE_PCT", "load"]

#: Past this measured error (%) an approximate percentile states its error in the answer (issue 28).
ERROR_RULE_PCT = 2.0


def load(name: str) -> dict[str, Any]:
    """A shipped error grid (``iosizer/data/error_grids/<name>.csv``) as numpy columns (text for labels)."""
    import csv
    from importlib.resources import files

    import numpy as np

    with files("iosizer.data.error_grids").joinpath(f"{name}.csv").open() as handle:
        rows = list(csv.DictReader(handle))

    def column(key: str) -> Any:
        try:
            return np.array([float(row[key]) for row in rows])
        except ValueError:  # a label (scenario, policy)
            return np.array([row[key] for row in rows])

    return {key: column(key) for key in rows[0]}
