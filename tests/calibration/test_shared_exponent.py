"""One CPU measured, another asked: CPU-bound parameters share one exponent (issue 25, N7).

With one profile the CPU exponent of a power-law parameter is unknown inside
its declared range. Parameters declared with the same range (the demands of a
closed network, a DMA device's two intervals) are one unknown, not one each:
the band at the new speed must span the answers with every one of them at one
end of the range and with every one at the other end. Drawn independently (the
defect), the ends cancel in quadrature and the band excludes both.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import iosizer
from iosizer.calibration.calibrate import load_measurements
from iosizer.calibration.whatif import what_if
from iosizer.model.registry import declaration

SPEED = 2.0


def _shared_groups(name: str) -> list[tuple[tuple[float, float], list[str]]]:
    """The family's power-law parameters grouped by their declared exponent range (groups of two or more)."""
    family = declaration(name)
    groups: dict[tuple[float, float], list[str]] = defaultdict(list)
    for spec in family.specs(dict(family.example_settings)):
        if spec.kind == "parameter" and spec.cpu_scaling.value == "power":
            groups[tuple(spec.exponent_bounds)].append(spec.name)
    return [(bounds, names) for bounds, names in groups.items() if len(names) > 1]


FAMILIES = [name for name in iosizer.families() if declaration(name).fit is not None and _shared_groups(name)]


def test_the_families_with_shared_exponents() -> None:
    # Every family with more than one CPU-bound parameter of one declared range is tested below.
    assert {"closed-network", "dma", "replication"} <= set(FAMILIES)


def _solver(name: str, inputs: dict[str, np.ndarray]):
    from iosizer.api import _complete

    family = declaration(name)

    def evaluate(values: dict) -> dict:
        settings = {s.name: values[s.name] for s in family.settings}
        return family.solve({**values, **_complete(name, settings)}, inputs)

    return evaluate


@pytest.mark.parametrize("name", FAMILIES)
def test_the_band_spans_the_declared_end_points(tmp_path: Path, name: str) -> None:
    family = iosizer.family(name)
    settings = dict(family.declaration.example_settings)
    path = family.calibrate(family.example(), cpu_speed=1.0, **settings).save(tmp_path / f"{name}.json")
    inputs = load_measurements(family.example(), family.columns).inputs()
    evaluate = _solver(name, inputs)
    here = what_if(name, path).values
    carried = what_if(name, path, cpu_speed=SPEED)
    bands = carried.bands(evaluate)
    assert bands
    for bounds, names in _shared_groups(name):
        for exponent in bounds:  # every parameter of the group at one end of the declared range together
            end = evaluate({**carried.values, **{n: here[n] * SPEED ** exponent for n in names}})
            for key, (low, high) in bands.items():
                value = np.asarray(end[key], dtype=float)
                finite = np.isfinite(value) & np.isfinite(low) & np.isfinite(high)
                slack = 1e-9 * np.abs(value[finite])
                assert np.all(low[finite] <= value[finite] + slack), (name, key, exponent, names)
                assert np.all(value[finite] <= high[finite] + slack), (name, key, exponent, names)


def test_the_issue_s_six_station_network(tmp_path: Path) -> None:
    # The figures of the issue: 6 stations whose demands all scale with an exponent in [-1, 0],
    # population 8, CPU speed 2: every demand x1 gives 75,415/s and x0.5 gives 150,830/s (exact MVA:
    # halving every demand doubles the throughput). The band must span both.
    from iosizer.calibration.profile import load_profile
    from iosizer.model.mva import mva

    demands = np.array([1.0, 0.9, 0.8, 0.7, 0.6, 0.5]) * 2e-5
    curve = mva(list(demands), 0.0, 40).curve
    rng = np.random.default_rng(25)
    rows = [f"{n},{curve.throughput[n - 1] * (1 + rng.normal(0, 0.005))},"
            f"{curve.response_time[n - 1] * (1 + rng.normal(0, 0.005))}" for n in range(1, 41, 2)]
    data = tmp_path / "six.csv"
    data.write_text("population,throughput_per_s,response_time_s\n" + "\n".join(rows) + "\n")
    fitted = iosizer.family("closed-network").calibrate(data, cpu_speed=1.0, stations=6, think_time_s=0.0)
    path = fitted.save(tmp_path / "six.json")
    profile = load_profile(path, "closed-network")
    fitted_demands = [profile.value(f"demand_{k}_s") for k in range(1, 7)]
    ends = [mva([d * f for d in fitted_demands], 0.0, 8).throughput for f in (1.0, 0.5)]
    point = iosizer.family("closed-network").ask("queue mva", profile, cpu_speed=SPEED, population=8).records()[0]
    low, high = point["throughput_ci_low"], point["throughput_ci_high"]
    assert low <= min(ends) and high >= max(ends), (low, high, ends)
