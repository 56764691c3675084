"""``--plot FILE``: a picture next to the numbers, written atomically."""

from __future__ import annotations

import builtins
from pathlib import Path

import pytest

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

pytest.importorskip("matplotlib")


@pytest.mark.parametrize(
    "args",
    [
        ["queue", "mva", "--demand", "0.005", "--demand", "0.003", "--think-time", "0.1", "--population", "50"],
        ["queue", "mmc", "--arrival-rate", "0.5:3.5:0.5", "--service-rate", "1", "--servers", "4"],
        ["queue", "mg1", "--arrival-rate", "0.1,0.5,0.9", "--service-rate", "1", "--service-scv", "2"],
    ],
)
def test_commands_draw_their_curves(cli, tmp_path: Path, args: list[str]) -> None:
    target = tmp_path / "curve.png"
    result = cli(*args, "--plot", str(target))
    assert result.exit_code == 0, result.stderr
    assert target.read_bytes().startswith(PNG_MAGIC)
    assert [p.name for p in tmp_path.iterdir()] == ["curve.png"]  # no temporary left


def test_calibration_plot_as_svg(cli, tmp_path: Path) -> None:
    from importlib import resources

    data = resources.files("iosizer.data").joinpath("examples", "load_test.csv")
    target = tmp_path / "fit.svg"
    result = cli("calibrate", "closed-network", str(data), "--stations", "3", "--plot", str(target))
    assert result.exit_code == 0, result.stderr
    assert b"<svg" in target.read_bytes()[:500]


def test_plot_errors(cli, tmp_path: Path, monkeypatch) -> None:
    base = ["queue", "mm1", "--arrival-rate", "0.5", "--service-rate", "1", "--plot"]
    assert "unknown picture type '.gif'" in cli.fails(*base, str(tmp_path / "x.gif"))
    assert "does not exist" in cli.fails(*base, str(tmp_path / "no" / "x.png"))

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert "pip install 'iosizer[plot]'" in cli.fails(*base, str(tmp_path / "x.png"))
