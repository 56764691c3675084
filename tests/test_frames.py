"""Answers as a notebook user meets them: to_frame(), repr(), _repr_html_() and to_dict() (issue 30)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import iosizer
from iosizer.errors import IosizerError, MissingExtraError
from iosizer.frames import AnswerDict, AnswerList, Table, format_number, split_columns

pandas = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def fit() -> iosizer.FitReport:
    mmc = iosizer.family("mmc")
    return mmc.calibrate(mmc.example(), servers=4)


def _cell(value: float, low: float, high: float) -> str:
    return f"{format_number(value)} [{format_number(low)}, {format_number(high)}]"


def test_prediction_views_carry_values_bands_and_units(fit: iosizer.FitReport) -> None:
    at = iosizer.family("mmc").predict(fit.profile, arrival_rate_per_s=[1000.0, 3000.0])
    record = at.to_dict()
    text = repr(at)
    # Every point reads "value [low, high]" with the numbers to_dict() holds.
    for i in range(2):
        assert _cell(record["mean_response_s"][i], record["mean_response_s_ci_low"][i],
                     record["mean_response_s_ci_high"][i]) in text
    assert "95 % bands" in text.splitlines()[0]
    frame = at.to_frame()
    assert list(frame.columns) == ["arrival_rate_per_s", "mean_response_s", "mean_response_s_ci_low",
                                   "mean_response_s_ci_high"]
    assert frame["mean_response_s"].tolist() == record["mean_response_s"]
    html = at._repr_html_()
    assert html.count("<tr>") == 3 and "<th>mean_response_s</th>" in html
    # to_dict() keeps its shape: columns of values (what the README shows).
    assert sorted(record) == sorted(frame.columns)


def test_frame_names_carry_the_declared_unit_where_the_name_has_none() -> None:
    hba = iosizer.family("hba")
    units = {c.name: c.unit for c in (*hba.columns.inputs, *hba.columns.outputs)}
    frame = hba.predict({"cores": 4}, threads=[1, 8, 16]).to_frame()
    assert frame.columns[0] == f"threads [{units['threads']}]"  # 'threads' carries no unit suffix
    assert "response_us" in frame.columns  # '_us' already says it
    assert frame.shape == (3, len(frame.columns))


def test_fit_report_reads_like_lmfit_and_to_dict_is_the_cli_json(fit: iosizer.FitReport, cli) -> None:
    text = repr(fit)
    assert text == fit.fit_report()
    sections = [line for line in text.splitlines() if line.startswith("[[")]
    assert [s.split("]]")[0] + "]]" for s in sections] == ["[[Fit Statistics]]", "[[Parameters]]", "[[Warnings]]"]
    rate = fit.params["service_rate_per_s"]
    error = fit.calibration.fit.stderr["service_rate_per_s"]
    low, high = fit.intervals["service_rate_per_s"]
    line = next(line for line in text.splitlines() if line.strip().startswith("service_rate_per_s:"))
    assert f"{format_number(rate)} +/- {format_number(error)}" in line
    assert f"[{format_number(low)}, {format_number(high)}]" in line and line.rstrip().endswith("fitted")
    assert "95 % confidence" in text
    # to_dict() is what iosizer calibrate --format json prints for the same data.
    printed = cli.json("calibrate", "mmc", str(iosizer.family("mmc").example()), "--set", "servers=4")
    assert json.loads(json.dumps(fit.to_dict())) == printed
    frame = fit.to_frame()
    assert list(frame.columns) == ["parameter", "value", "ci_low", "ci_high", "stderr", "unit", "status"]
    assert frame.loc[0, "value"] == rate and frame.loc[0, "status"] == "fitted"
    assert "<table>" in fit._repr_html_()


def test_ask_answers_are_the_json_with_table_views(cli) -> None:
    size = iosizer.ask("size servers", arrival_rate=3.2, service_rate=1, target_response_s=1.5)
    assert isinstance(size, AnswerDict) and isinstance(size, dict)
    assert size == size.to_dict() == cli.json("size", "servers", "--arrival-rate", "3.2", "--service-rate", "1",
                                               "--target-response-s", "1.5")
    frame = size.to_frame()
    assert len(frame) == 1 and frame.loc[0, "servers"] == size["servers"]
    assert str(size["servers"]) in repr(size)
    sweep = iosizer.ask("queue mmc", arrival_rate="1,2", service_rate=1, servers=4)
    assert isinstance(sweep, AnswerList) and sweep.to_dict() == sweep
    # A declared question's frame names each column with its declared unit.
    assert sweep.to_frame()["mean_response [t]"].tolist() == [row["mean_response"] for row in sweep]


def test_ask_simulation_folds_the_interval_of_the_simulated_mean() -> None:
    pytest.importorskip("ciw")
    rows = iosizer.ask("simulate mmc", arrival_rate=3.2, service_rate=1, servers=4, replications=2,
                       run_length=300, workers=1, seed=1)
    assert isinstance(rows, AnswerList)
    first = rows[0]
    assert _cell(first["simulated"], first["ci_low"], first["ci_high"]) in repr(rows)
    assert rows.to_frame()["simulated"].tolist() == [r["simulated"] for r in rows]


def test_missing_pandas_is_a_typed_error_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    with pytest.raises(MissingExtraError, match=r"pip install 'iosizer\[pandas\]'") as caught:
        Table.of([{"x_s": 1.0}]).to_frame()
    assert isinstance(caught.value, IosizerError) and caught.value.extra == "pandas"


def test_importing_frames_does_not_import_pandas() -> None:
    code = "import sys, iosizer, iosizer.frames; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_long_answers_elide_the_middle_rows() -> None:
    table = Table.of([{"n": i, "x_s": i / 3} for i in range(100)])
    text = table.text(width=80)
    assert "... 84 more rows ..." in text
    assert len(text.splitlines()) == 1 + 16 + 1


def test_split_columns_keeps_the_key_column_and_never_cuts_one() -> None:
    assert split_columns([5, 10, 10], None) == [[0, 1, 2]]
    assert split_columns([5, 10, 10], 40, overhead=3, base=1) == [[0, 1, 2]]
    assert split_columns([5, 10, 10], 25, overhead=3, base=1) == [[0, 1], [0, 2]]
    assert split_columns([5, 50], 20, overhead=3, base=1) == [[0, 1]]  # too wide: alone, uncut


def test_a_declared_questions_answer_is_the_cli_json_with_table_views(cli) -> None:
    pytest.importorskip("iosizer_mm1k", reason="the example plugin is not installed")
    answer = iosizer.family("mm1k").ask("queue", arrival_rate=[0.5, 0.9], capacity=10)
    printed = cli.json("mm1k", "queue", "--arrival-rate", "0.5,0.9", "--capacity", "10")
    assert answer.to_dict() == printed
    asked = iosizer.ask("mm1k queue", arrival_rate=[0.5, 0.9], capacity=10)
    assert isinstance(asked, AnswerList) and asked == printed
    frame = answer.to_frame()
    assert frame.columns[0] == "arrival_rate [1/t]" and "mean_response [t]" in frame.columns
    first = printed[0]
    cell = _cell(first["mean_response"], first["mean_response_ci_low"], first["mean_response_ci_high"])
    assert cell in repr(answer) and cell in repr(asked)


def test_a_simulation_result_is_the_cli_json_with_table_views(cli) -> None:
    pytest.importorskip("ciw")
    from iosizer.simulate import simulate

    result = simulate("mmc", arrival_rate=3.2, service_rate=1.0, servers=4, replications=2, seed=1, workers=1,
                      run_length=300)
    printed = cli.json("simulate", "mmc", "--arrival-rate", "3.2", "--service-rate", "1", "--servers", "4",
                       "--replications", "2", "--seed", "1", "--workers", "1", "--run-length", "300")
    assert result.to_dict() == printed  # the same seed, the same answer
    assert result.to_frame()["simulated"].tolist() == [r["simulated"] for r in printed]
    first = printed[0]
    assert _cell(first["simulated"], first["ci_low"], first["ci_high"]) in repr(result)
    assert "<table>" in result._repr_html_()
