"""Pictures: an answer's panels (:attr:`iosizer.frames.Report.plot`) drawn with matplotlib, as PNG, SVG or PDF.

``--plot FILE`` of every command (:func:`iosizer.cli.output.emit`) and the
charts of ``iosizer report`` are drawn here; matplotlib is the optional extra
``iosizer[plot]``, imported only when a picture is drawn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iosizer.calibration.files import Writer, check_output_path
from iosizer.errors import InputError
from iosizer.frames import Panel, Report


def check_plot_path(path: Path | None) -> Path | None:
    """Refuse a bad --plot target before a command computes or writes anything."""
    if path is None:
        return None
    suffix = path.suffix.lower().lstrip(".") or "png"
    if suffix not in {"png", "svg", "pdf"}:
        raise InputError(f"--plot: unknown picture type '.{suffix}' (use .png, .svg or .pdf)")
    return check_output_path(path, "--plot")


def plot_writer(report: Report, path: Path) -> Writer:
    """Check that ``report`` can be drawn and return the function that draws it."""
    check_plot_path(path)
    if not report.plot:
        raise InputError("--plot: this command has no curve to draw")
    try:
        import matplotlib
    except ImportError:
        raise InputError("--plot needs matplotlib: pip install 'iosizer[plot]'") from None
    suffix = path.suffix.lower().lstrip(".") or "png"

    def draw(temporary: Path) -> None:
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        panels = report.plot or []
        figure, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.2), squeeze=False)
        try:
            for ax, panel in zip(axes[0], panels):
                draw_panel(ax, panel, report.title)
            figure.tight_layout()
            figure.savefig(temporary, format=suffix, dpi=120)
        finally:
            plt.close(figure)

    return draw


def draw_panel(ax: Any, panel: Panel, title: str) -> None:
    for series in panel.series:
        if series.kind == "band":
            ax.fill_between(series.x, series.y, series.y_high, alpha=0.25, label=series.label)
        elif series.kind in ("points", "bound", "linepoints"):
            style = {"points": "o", "bound": "v", "linepoints": "o-"}[series.kind]
            ax.plot(series.x, series.y, style, label=series.label)
        else:
            ax.plot(series.x, series.y, "--" if series.kind == "dashed" else "-", label=series.label)
    ax.set_xlabel(panel.x_label)
    ax.set_ylabel(panel.y_label)
    ax.set_title(panel.title or title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
