"""Tables that fit the terminal, --columns and --rows (issue 30): one renderer, cli/output.py."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

import iosizer
from iosizer.cli.app import app
from iosizer.frames import format_number

#: A wide answer: a profile (bands) and four percentiles give 34 JSON columns per row.
WIDE = ["queue", "mmc", "--arrival-rate", "1000,2000,3000", "--percentile", "50", "--percentile", "90",
        "--percentile", "99", "--percentile", "99.9"]


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    profile = tmp_path_factory.mktemp("output") / "mmc.json"
    made = CliRunner().invoke(app, ["calibrate", "mmc", str(iosizer.family("mmc").example()), "--set", "servers=4",
                                    "-o", str(profile)])
    assert made.exit_code == 0, made.stderr
    return [*WIDE, "--profile", str(profile)]


def _run(args: list[str], columns: str | None, answer: bool = True) -> tuple[str, list[dict[str, object]]]:
    """(the table as printed with COLUMNS set or unset, the same answer's JSON rows if asked)."""
    runner = CliRunner()
    table = runner.invoke(app, args, env={"COLUMNS": columns})
    assert table.exit_code == 0, table.stderr
    if not answer:
        return table.stdout, []
    return table.stdout, json.loads(runner.invoke(app, [*args, "--format", "json"]).stdout)


def _banded_cells(rows: list[dict[str, object]]) -> list[str]:
    """Every value with its band as the table must show it, whole: 'value [low, high]'."""
    cells = []
    for row in rows:
        for key, value in row.items():
            if f"{key}_ci_low" in row:
                cells.append(f"{format_number(value)} [{format_number(row[key + '_ci_low'])}, "
                             f"{format_number(row[key + '_ci_high'])}]")
    return cells


def test_a_wide_table_fits_80_columns_and_never_wraps_a_number(wide: list[str]) -> None:
    text, rows = _run(wide, "80")
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    cells = _banded_cells(rows)
    assert len(cells) == 3 * 14  # 14 banded outputs per arrival rate
    for cell in cells:  # whole, on one line: nothing folded mid-digit
        assert cell in text, cell
    # Each folded table repeats the key column, and a row is one line.
    assert text.count("arrival_rate") >= 2
    assert sum(1 for line in lines if re.match(r"│\s+3000 │", line)) == text.count("arrival_rate")


def test_piped_output_is_one_table_with_one_line_per_row(wide: list[str]) -> None:
    text, rows = _run(wide, None)  # no terminal, no COLUMNS: as wide as the table is
    lines = text.splitlines()
    assert sum(1 for line in lines if line.startswith("┃")) == 1  # one table, its header on one line
    assert sum(1 for line in lines if line.startswith("│")) == len(rows)  # one line per arrival rate
    for cell in _banded_cells(rows):
        assert cell in text


def test_columns_chooses_columns_with_their_bands(wide: list[str]) -> None:
    text, _ = _run([*wide, "--columns", "arrival_rate,response_p99"], "80", answer=False)
    rows = _run(wide, "80")[1]
    header = next(line for line in text.splitlines() if "arrival_rate" in line)
    assert re.findall(r"\w+", header) == ["arrival_rate", "response_p99"]
    for row in rows:
        assert f"{format_number(row['response_p99'])} [{format_number(row['response_p99_ci_low'])}, " in text
    csv = CliRunner().invoke(app, [*wide, "--columns", "arrival_rate,response_p99", "--format", "csv"]).stdout
    assert csv.splitlines()[0] == "arrival_rate,response_p99,response_p99_ci_low,response_p99_ci_high"


def test_columns_of_a_one_point_answer_are_its_metrics(wide: list[str]) -> None:
    # A declared question's one point is a row like a sweep's: the columns chosen are its header, in order.
    args = ["queue", "ggc", wide[2], "2000", *wide[4:], "--columns", "mean_response,wait_p99"]
    text = CliRunner().invoke(app, args, env={"COLUMNS": "80"}).stdout
    header = next(line for line in text.splitlines() if line.startswith("┃"))
    assert re.findall(r"\w+", header) == ["mean_response", "wait_p99"]
    assert sum(1 for line in text.splitlines() if line.startswith("│")) == 1


def test_unknown_columns_and_json_without_rows_are_one_line_errors(cli, wide: list[str]) -> None:
    line = cli.fails(*wide, "--columns", "arrival_rate,mean_respons")
    assert "--columns: no column 'mean_respons'" in line and "mean_response," in line
    assert "_ci_low" not in line  # a band comes with its value; the list stays short
    assert "--format json without --rows" in cli.fails(*wide, "--columns", "arrival_rate", "--format", "json")


def test_json_shapes_stay_and_rows_always_gives_a_list(cli) -> None:
    one = ["queue", "mmc", "--arrival-rate", "2", "--service-rate", "1", "--servers", "4"]
    two = ["queue", "mmc", "--arrival-rate", "2,3", "--service-rate", "1", "--servers", "4"]
    assert isinstance(cli.json(*one), dict)  # today's shapes, for the scripts that read them
    assert isinstance(cli.json(*two), list)
    as_rows = cli.json(*one, "--rows")
    assert as_rows == [{"arrival_rate": 2.0, **cli.json(*one)}]  # the sweep's row shape, one row
    assert cli.json(*two, "--rows") == cli.json(*two)
    chosen = cli.json(*two, "--rows", "--columns", "arrival_rate,mean_response")
    assert [sorted(r) for r in chosen] == [["arrival_rate", "mean_response"]] * 2


def test_calibrate_keeps_its_own_columns_flag(cli) -> None:
    result = cli("calibrate", "mmc", "--columns")
    assert result.exit_code == 0 and "arrival_rate_per_s" in result.stdout


def test_ask_and_the_http_catalogue_do_not_take_the_table_options() -> None:
    from iosizer.catalogue import command_spec

    keys = {f.key for f in command_spec(("size", "servers")).fields}  # a generated command
    assert "rows" not in keys and "columns" not in keys


def test_a_choice_lasts_one_command(cli) -> None:
    args = ["queue", "mmc", "--arrival-rate", "2,3", "--service-rate", "1", "--servers", "4", "--format", "csv"]
    assert cli(*args, "--columns", "arrival_rate").stdout.splitlines()[0] == "arrival_rate"
    assert cli(*args).stdout.splitlines()[0].startswith("arrival_rate,utilization,p_wait")


def test_folded_tables_repeat_what_names_a_row(cli) -> None:
    """A row of 'hba isolation' is named by its mode and LPAR2's load: both lead every folded table."""
    text = CliRunner().invoke(app, ["hba", "isolation"], env={"COLUMNS": "80"}).stdout
    headers = [re.findall(r"\w+", line) for line in text.splitlines() if line.startswith("┃")]
    assert len(headers) >= 2
    assert all(h[:2] == ["mode", "lpar2_offered_iops"] for h in headers)
    assert max(len(line) for line in text.splitlines()) <= 80
