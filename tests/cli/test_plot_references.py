"""What a declared plot draws beside its curves (model.family.Plot: ``beside`` and ``references``)."""

from __future__ import annotations

import pytest

import iosizer
from iosizer.calibration.shipped import read_measurement
from iosizer.cli.questions import _panels
from iosizer.model.family import Input, Output, Plot, Question, Reference
from iosizer.model.registry import declaration


def _drawn(family: str, command: str, **inputs: object) -> dict[str, list]:
    answer = iosizer.family(family).ask(command, **inputs)
    question = declaration(family).question(command)
    panels = _panels(question, answer, answer.records())
    return {s.label: s for panel in panels for s in panel.series} | {"_panels": panels}


def test_a_bound_beside_its_curve_is_the_declared_output_dashed() -> None:
    drawn = _drawn("closed-network", "queue mva", demand_s=[0.005, 0.003], think_time_s=1.0,
                   population=[1, 20, 40])
    answer = iosizer.family("closed-network").ask("queue mva", demand_s=[0.005, 0.003], think_time_s=1.0,
                                                  population=[1, 20, 40])
    bound = drawn["throughput_upper_bound"]
    assert bound.kind == "dashed" and list(bound.y) == [r["throughput_upper_bound"] for r in answer.records()]
    assert drawn["response_time_lower_bound"].kind == "dashed"


def test_a_catalogue_entrys_published_point_comes_from_the_answers_values() -> None:
    drawn = _drawn("dma", "latency dma", device="bcm5700", added_latency_ns=[0, 1000, 3000])
    measured = drawn["table 4-1 measured"]
    # table 4-1: BCM5700 at +2,100 ns, measured -48.1 % (data/measurements/seed000_table4_1_dma.csv)
    assert (list(measured.x), list(measured.y), measured.kind) == ([2100.0], [48.1], "points")
    family = iosizer.family("dma")
    fitted = family.calibrate(family.example()).profile
    answer = family.ask("latency dma", fitted, added_latency_ns=[0, 1000])
    panels = _panels(declaration("dma").question("latency dma"), answer, answer.records())
    assert [s.label for s in panels[0].series if s.kind == "points"] == []  # a planner's fit: no published point


def test_a_measurement_files_rows_are_drawn_one_series_per_group() -> None:
    drawn = _drawn("oltp", "latency oltp", added_latency_ns=[0, 1500, 2400])
    rows = read_measurement("seed000_tpcc_degradation")
    for relation in {r["relation"] for r in rows}:
        series = drawn[f"published ({relation})"]
        assert list(series.y) == [float(r["degradation_pct"]) for r in rows if r["relation"] == relation]


def test_a_bound_or_reference_on_an_output_not_drawn_is_refused() -> None:
    inputs = (Input("n", "jobs", (1, 10), default=1),)
    outputs = (Output("x", "1/s"), Output("x_bound", "1/s"))
    with pytest.raises(ValueError, match="plot names"):
        Question("q", "s", inputs, outputs, solve=lambda v, i: {}, plot=Plot("n", ("x",), beside=(("y", "x_bound"),)))
    with pytest.raises(ValueError, match="plot names"):
        Question("q", "s", inputs, outputs, solve=lambda v, i: {},
                 plot=Plot("n", ("x",), references=(Reference("x_bound", "a", "b", "published"),)))
    assert Question("q", "s", inputs, outputs, solve=lambda v, i: {},
                    plot=Plot("n", ("x",), beside=(("x", "x_bound"),))).plot is not None


def test_a_setting_beside_a_curve_is_a_level_at_its_value() -> None:
    # latency tiers: the budget on the loss panel, as the hand-written plot drew it (a dashed level).
    drawn = _drawn("oltp", "latency tiers", budget_pct=7.0)
    level = drawn["budget_pct = 7"]
    assert level.kind == "dashed" and list(level.y) == [7.0, 7.0] and list(level.x) == [150.0, 3200.0]
    assert [p.y_label for p in drawn["_panels"]] == ["max_tiers (tiers)", "loss_2_tiers_pct (%)"]
    rows = read_measurement("seed000_sec4_4_tiers")
    stated = drawn["sec 4.4: stated loss at tiers (2)"]  # the published tier points, one series per tier count
    assert list(stated.y) == [float(r["degradation_pct"]) for r in rows if r["tiers"] == "2"]
    within = drawn["sec 4.4: tiers within 5 % (true)"]
    assert list(within.y) == [float(r["tiers"]) for r in rows if r["within_5pct"] == "true"]
    inputs = (Input("n", "jobs", (1, 10), default=1),)
    with pytest.raises(ValueError, match="plot names"):  # only the question's own settings are levels
        Question("q", "s", inputs, (Output("x", "1/s"),), solve=lambda v, i: {},
                 plot=Plot("n", ("x",), beside=(("x", "budget_pct"),)))
