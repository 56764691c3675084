"""What the grid scripts share: one measured cell (model vs replications) and writing a grid atomically."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

GRIDS = Path(__file__).resolve().parents[1] / "data" / "error_grids"


def cell(model: float, replications: np.ndarray) -> dict[str, str]:
    """model, simulated mean, the mean's 95 % half-width (Student t over replications) and the error, in %."""
    from scipy.stats import t as student

    mean = float(np.mean(replications))
    count = len(replications)
    half = student.ppf(0.975, count - 1) * float(np.std(replications, ddof=1)) / np.sqrt(count)
    return {"model": f"{model:.6g}", "simulated": f"{mean:.6g}", "half_width_pct": f"{100 * half / mean:.2f}",
            "error_pct": f"{100 * (model / mean - 1):.2f}"}


def write(rows: list[dict], name: str) -> None:
    """``data/error_grids/<name>.csv``, written to a temporary file and renamed."""
    out = GRIDS / f"{name}.csv"
    tmp = out.with_suffix(".tmp")
    with tmp.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(out)
